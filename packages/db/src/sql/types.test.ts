import { describe, expect, it } from 'vitest';
import { distinctTimes } from './types';

describe('distinctTimes', () => {
  it('keeps each instant once, in first-seen order, whatever Date object carries it', () => {
    const a = new Date('2026-12-01T00:00:00Z');
    const b = new Date('2026-12-01T00:00:01Z');
    const times = [a, new Date(a.getTime()), b, new Date(a.getTime()), new Date(b.getTime())];
    expect(distinctTimes(times).map((t) => t.toISOString())).toEqual([a.toISOString(), b.toISOString()]);
    expect(distinctTimes([])).toEqual([]);
  });
});
