// Wake-up timing without a database: every due time hinted for a queue wakes the workers at
// that time, including later ones for a queue that is already waiting or already ready.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type pg from 'pg';
import type { DbClock } from '../db-clock';
import { createLogger } from '../logger';
import { WAKE_SLACK_MS, Wakeups } from './wakeups';

describe('Wakeups', () => {
  let wakeups: Wakeups;
  let ready: { at: number; queues: string[] }[];

  beforeEach(() => {
    vi.useFakeTimers({ now: new Date('2026-12-01T10:00:00Z') });
    const clock = { now: () => Date.now() } as DbClock;
    wakeups = new Wakeups(
      {} as pg.Pool,
      clock,
      { url: 'postgres://unused', discoveryMs: 2_000, lanes: ['push'] },
      createLogger('silent', {}),
    );
    ready = [];
    wakeups.on('ready', (queues) =>
      ready.push({ at: Date.now() - new Date('2026-12-01T10:00:00Z').getTime(), queues }),
    );
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('marks a queue ready at each of its due times, not only the earliest', () => {
    const t0 = Date.now();
    wakeups.hint('t.a.normal', t0 + 1_000);
    wakeups.hint('t.a.normal', t0 + 2_000);
    wakeups.hint('t.a.normal', t0 + 1_500);
    vi.advanceTimersByTime(3_000);
    expect(ready).toEqual([
      { at: 1_000 + WAKE_SLACK_MS, queues: ['t.a.normal'] },
      { at: 1_500 + WAKE_SLACK_MS, queues: ['t.a.normal'] },
      { at: 2_000 + WAKE_SLACK_MS, queues: ['t.a.normal'] },
    ]);
  });

  it('a hint for work already due does not cancel a later wake-up of the same queue', () => {
    const t0 = Date.now();
    wakeups.hint('t.a.normal', t0 + 1_000);
    wakeups.hint('t.a.normal', t0 - 5);
    expect(ready).toEqual([{ at: 0, queues: ['t.a.normal'] }]);
    vi.advanceTimersByTime(1_000 + WAKE_SLACK_MS);
    expect(ready).toEqual([
      { at: 0, queues: ['t.a.normal'] },
      { at: 1_000 + WAKE_SLACK_MS, queues: ['t.a.normal'] },
    ]);
  });

  it('wakes several queues due at the same moment together, once each, and re-arms for the next', () => {
    const t0 = Date.now();
    wakeups.hint('t.b.high', t0 + 500);
    wakeups.hint('t.a.normal', t0 + 500);
    wakeups.hint('t.a.normal', t0 + 500); // repeated (discovery hints again): still one wake-up
    wakeups.hint('t.c.low', t0 + 800);
    vi.advanceTimersByTime(1_000);
    expect(ready).toEqual([
      { at: 500 + WAKE_SLACK_MS, queues: expect.arrayContaining(['t.a.normal', 't.b.high']) },
      { at: 800 + WAKE_SLACK_MS, queues: ['t.c.low'] },
    ]);
    expect(ready[0]?.queues).toHaveLength(2);
  });
});
