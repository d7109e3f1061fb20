import { describe, expect, it } from 'vitest';
import { Backoff, backoffDelayMs } from './backoff';

describe('backoffDelayMs', () => {
  const options = { initialMs: 100, maxMs: 1_000 };

  it('doubles per failure up to the cap, half fixed and half jitter', () => {
    expect([1, 2, 3, 4, 5, 50].map((n) => backoffDelayMs(n, options, () => 0))).toEqual([50, 100, 200, 400, 500, 500]);
    expect([1, 2, 3, 4, 5, 50].map((n) => backoffDelayMs(n, options, () => 1))).toEqual([
      100, 200, 400, 800, 1000, 1000,
    ]);
  });

  it('never spins: a broken random source still waits half the base', () => {
    expect(backoffDelayMs(1, options, () => Number.NaN)).toBe(50);
    expect(backoffDelayMs(0, options, () => -3)).toBe(50);
    expect(backoffDelayMs(3, options, () => 7)).toBe(400);
  });
});

describe('Backoff', () => {
  it('grows with failures in a row and starts over after a success', () => {
    const b = new Backoff({ initialMs: 100, maxMs: 1_000, random: () => 1 });
    expect([b.fail(), b.fail(), b.fail()]).toEqual([100, 200, 400]);
    expect(b.streak).toBe(3);
    b.succeed();
    expect(b.streak).toBe(0);
    expect(b.fail()).toBe(100);
  });
});
