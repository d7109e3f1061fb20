import { describe, expect, it } from 'vitest';
import { OutputTail } from './output-tail';

describe('OutputTail', () => {
  it('keeps the last 4 KiB of everything pushed', () => {
    const tail = new OutputTail();
    for (let i = 0; i < 100; i++) tail.push(Buffer.from(`line ${i} ${'x'.repeat(100)}\n`));
    const text = tail.text();
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(4096);
    expect(text.endsWith(`line 99 ${'x'.repeat(100)}\n`)).toBe(true);
    expect(text.length).toBeGreaterThan(4000);
  });

  it('cuts at a character boundary and drops NULs', () => {
    const tail = new OutputTail(10);
    tail.push(Buffer.from('ééééééé\u0000ok'));
    const text = tail.text();
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(10);
    expect(text).toBe('éééok');
  });

  it('is empty without output', () => {
    expect(new OutputTail().text()).toBe('');
  });
});
