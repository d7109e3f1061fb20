import { describe, expect, it } from 'vitest';
import { newId } from './ids';
import { partitionOf } from './partition';

// Frozen values, cross-checked against an independent Python implementation of the
// algorithm in partition.ts. If this test fails, the change moves stored jobs between
// partitions: revert it, don't update the numbers.
// [id, full 32-bit hash (partitions = 2^32), mod 1024, mod 1000, mod 7]
const FROZEN: ReadonlyArray<readonly [string, number, number, number, number]> = [
  ['', 2872998923, 11, 923, 4],
  ['a', 444641715, 435, 715, 0],
  ['job_01HZY3M6Q8W4V7K2N9T5R1B3XC', 3468626684, 764, 684, 5],
  ['job_01HZY3M6Q8W4V7K2N9T5R1B3XD', 1354004920, 440, 920, 2],
  ['job_00000000000000000000000000', 516287314, 850, 314, 4],
  ['job_7ZZZZZZZZZZZZZZZZZZZZZZZZZ', 1009032334, 142, 334, 2],
  ['nightly-report', 1368865348, 580, 348, 4],
  ['jöb_ünïcode_日本', 3605127166, 1022, 166, 4],
  ['\ud800', 1205388858, 570, 858, 2], // lone surrogate hashes as U+FFFD
];

// Plain FNV-1a 32 (steps 1-2 of the documented algorithm), checked against the
// published FNV test vectors so the reference below is itself trustworthy.
function fnv1a(s: string): number {
  let h = 0x811c9dc5n;
  for (const b of Buffer.from(s, 'utf8')) h = ((h ^ BigInt(b)) * 0x01000193n) & 0xffffffffn;
  return Number(h);
}
function fmix32(x: number): number {
  let h = BigInt(x);
  h ^= h >> 16n;
  h = (h * 0x85ebca6bn) & 0xffffffffn;
  h ^= h >> 13n;
  h = (h * 0xc2b2ae35n) & 0xffffffffn;
  h ^= h >> 16n;
  return Number(h);
}

describe('partitionOf', () => {
  it('is frozen', () => {
    for (const [id, full, p1024, p1000, p7] of FROZEN) {
      expect(partitionOf(id, 2 ** 32), id).toBe(full);
      expect(partitionOf(id, 1024), id).toBe(p1024);
      expect(partitionOf(id, 1000), id).toBe(p1000);
      expect(partitionOf(id, 7), id).toBe(p7);
      expect(partitionOf(id, 1), id).toBe(0);
    }
  });

  it('matches an independent BigInt implementation of the documented algorithm', () => {
    expect(fnv1a('')).toBe(0x811c9dc5);
    expect(fnv1a('a')).toBe(0xe40c292c);
    expect(fnv1a('foobar')).toBe(0xbf9cf968);
    for (let i = 0; i < 500; i++) {
      const id = newId('job');
      expect(partitionOf(id, 2 ** 32)).toBe(fmix32(fnv1a(id)));
    }
  });

  it('stays in range', () => {
    for (const n of [1, 2, 3, 7, 64, 1000, 1024, 65_536, 2 ** 31 + 11]) {
      for (let i = 0; i < 200; i++) {
        const p = partitionOf(newId('job'), n);
        expect(Number.isInteger(p) && p >= 0 && p < n).toBe(true);
      }
    }
  });

  it('spreads 100,000 random job ids evenly over 1024 partitions', () => {
    const n = 1024;
    const total = 100_000;
    const counts = new Array<number>(n).fill(0);
    for (let i = 0; i < total; i++) counts[partitionOf(newId('job'), n)]!++;
    const expected = total / n; // ~97.7, standard deviation ~9.9
    // ±6 sigma per bucket (38..157): a fair hash breaches this about once in 50,000 runs
    // even across 1024 buckets, while a broken one (e.g. unused bits) fails immediately.
    expect(Math.min(...counts)).toBeGreaterThan(expected - 6 * Math.sqrt(expected));
    expect(Math.max(...counts)).toBeLessThan(expected + 6 * Math.sqrt(expected));
    // Chi-square with 1023 degrees of freedom: mean 1023, sd ~45; 1300 is > 6 sd out.
    const chi = counts.reduce((acc, c) => acc + (c - expected) ** 2 / expected, 0);
    expect(chi).toBeLessThan(1300);
  });

  it('spreads ids created in the same millisecond (shared timestamp prefix) evenly', () => {
    const t = new Date('2024-06-01T00:00:00Z');
    const counts = new Array<number>(64).fill(0);
    for (let i = 0; i < 64_000; i++) counts[partitionOf(newId('job', t), 64)]!++;
    const chi = counts.reduce((acc, c) => acc + (c - 1000) ** 2 / 1000, 0);
    expect(chi).toBeLessThan(140); // 63 dof: mean 63, sd ~11
  });

  it('spreads sequential names evenly (where plain FNV-1a clusters)', () => {
    const counts = new Array<number>(1024).fill(0);
    for (let i = 0; i < 100_000; i++) counts[partitionOf(`job-${String(i).padStart(8, '0')}`, 1024)]!++;
    const expected = 100_000 / 1024;
    const chi = counts.reduce((acc, c) => acc + (c - expected) ** 2 / expected, 0);
    expect(chi).toBeLessThan(1300);
  });

  it('rejects invalid partition counts', () => {
    for (const n of [0, -1, 1.5, Number.NaN, Infinity, 2 ** 32 + 1]) {
      expect(() => partitionOf('job_x', n), String(n)).toThrow(RangeError);
    }
    expect(() => partitionOf(undefined as unknown as string, 8)).toThrow(TypeError);
  });
});
