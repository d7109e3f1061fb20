// The start-lag window behind the heartbeat's percentiles: a fixed ring, oldest out first.
import { describe, expect, it } from 'vitest';
import { LagWindow } from './lag-window';

describe('LagWindow', () => {
  it('answers the percentiles of the lags recorded since a time', () => {
    const w = new LagWindow(1_000);
    for (let i = 1; i <= 100; i++) w.record(101 - i, 1_000 + i); // 100 down to 1, at 1001..1100
    expect(w.summary(0)).toEqual({ count: 100, p50: 51, p95: 96, p99: 100 });
    // Only the last ten (lags 10 down to 1).
    expect(w.summary(1_091)).toEqual({ count: 10, p50: 6, p95: 10, p99: 10 });
    expect(w.summary(2_000)).toEqual({ count: 0, p50: null, p95: null, p99: null });
  });

  it('keeps the last `capacity` lags once it is full, the oldest going first', () => {
    const w = new LagWindow(5);
    for (let i = 1; i <= 12; i++) w.record(i * 10, i);
    expect(w.summary(0)).toEqual({ count: 5, p50: 100, p95: 120, p99: 120 });
    expect(w.summary(11)).toEqual({ count: 2, p50: 120, p95: 120, p99: 120 });
    // Wrapping exactly at the end of the ring.
    const x = new LagWindow(4);
    for (let i = 1; i <= 8; i++) x.record(i, i);
    expect(x.summary(0)).toEqual({ count: 4, p50: 7, p95: 8, p99: 8 });
  });

  it('sorts numerically, not as text', () => {
    const w = new LagWindow(10);
    for (const ms of [900, 80, 1_000, 7]) w.record(ms, 1);
    expect(w.summary(0).p50).toBe(900);
    expect(w.summary(0).p99).toBe(1_000);
  });
});
