import { describe, expect, it } from 'vitest';
import { dueTime, jitterOffsetMs } from './jitter';

const at = new Date('2026-12-01T07:00:00.000Z');

describe('jitterOffsetMs', () => {
  it('is 0 without jitter', () => {
    expect(jitterOffsetMs('job_a', at, 0)).toBe(0);
    expect(dueTime('job_a', at, 0)).toEqual(at);
  });

  it('is deterministic per (job, occurrence) and within [0, jitter)', () => {
    for (let i = 0; i < 2000; i++) {
      const id = `job_${i}`;
      const t = new Date(at.getTime() + i * 60_000);
      const offset = jitterOffsetMs(id, t, 60);
      expect(Number.isInteger(offset)).toBe(true);
      expect(offset).toBeGreaterThanOrEqual(0);
      expect(offset).toBeLessThan(60_000);
      expect(jitterOffsetMs(id, new Date(t.getTime()), 60)).toBe(offset);
      expect(dueTime(id, t, 60).getTime()).toBe(t.getTime() + offset);
    }
    expect(jitterOffsetMs('job_x', at, 1)).toBeLessThan(1000);
    expect(jitterOffsetMs('job_x', at, 3600)).toBeLessThan(3_600_000);
  });

  it('differs between jobs and between occurrences of one job, and spreads a herd evenly', () => {
    const offsets = Array.from({ length: 10_000 }, (_, i) => jitterOffsetMs(`job_${i}`, at, 60));
    // Ten buckets of six seconds each hold about a tenth of the herd.
    const buckets = Array(10).fill(0) as number[];
    for (const o of offsets) buckets[Math.floor(o / 6000)] = (buckets[Math.floor(o / 6000)] as number) + 1;
    for (const b of buckets) expect(Math.abs(b - 1000)).toBeLessThan(150);
    const occurrences = new Set(
      Array.from({ length: 100 }, (_, i) => jitterOffsetMs('job_one', new Date(at.getTime() + i * 3600_000), 60)),
    );
    expect(occurrences.size).toBeGreaterThan(90);
  });
});
