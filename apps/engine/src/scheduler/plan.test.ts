// Misfire planning (plan.ts): what one scan makes of a due schedule entry under each policy,
// what repeated scans make of a long outage, and that cost and output stay bounded however
// long the outage was.
import { fireTimesBetween, type MisfirePolicy, nextFireTime, type ScheduleSpec } from '@belfry/core';
import { describe, expect, it } from 'vitest';
import { DEFAULT_PLAN_OPTIONS, type Plan, type PlanOptions, planEntry } from './plan';

const at = (iso: string) => new Date(iso);
const iso = (d: Date | null | undefined) => d?.toISOString() ?? null;
const SECOND = 1_000;
const MINUTE = 60 * SECOND;

const anchor = at('2026-11-01T00:00:00Z');
const everyMinute: ScheduleSpec = { type: 'interval', everySeconds: 60, anchor };
const everySecond: ScheduleSpec = { type: 'interval', everySeconds: 1, anchor };

const pendingTimes = (p: Plan) => p.occurrences.filter((o) => o.status === 'pending').map((o) => iso(o.scheduledTime));
const skippedTimes = (p: Plan) => p.occurrences.filter((o) => o.status === 'skipped').map((o) => iso(o.scheduledTime));

/** Every fire time in [first, last], first being a fire time. */
function occurrences(spec: ScheduleSpec, first: Date, last: Date): string[] {
  return [first, ...fireTimesBetween(spec, first, last, 1_000_000)].map((d) => d.toISOString());
}

/** Plans scan after scan (the entry moving to `next` each time) until the entry is in the future. */
function drain(
  spec: ScheduleSpec,
  due: Date,
  policy: MisfirePolicy,
  clock: () => Date,
  options: PlanOptions,
): { plans: Plan[]; now: Date; next: Date | null } {
  const plans: Plan[] = [];
  let entry: Date | null = due;
  let now = clock();
  while (entry && entry <= now) {
    const plan = planEntry(spec, entry, policy, now, options);
    plans.push(plan);
    entry = plan.next;
    if (plans.length > 10_000) throw new Error('planning does not converge');
    now = clock();
  }
  return { plans, now, next: entry };
}

describe('planEntry: an entry due within the grace period', () => {
  const due = at('2026-12-01T10:00:00Z');

  it.each(['run_once', 'skip', 'catch_up'] as const)(
    '%s: one pending run at the due time, then the next occurrence',
    (policy) => {
      const plan = planEntry(everyMinute, due, policy, new Date(due.getTime() + 30 * SECOND));
      expect(plan.occurrences).toEqual([{ scheduledTime: due, status: 'pending', skipReason: null }]);
      expect(iso(plan.next)).toBe('2026-12-01T10:01:00.000Z');
      expect(plan.unrecordedSkips).toBe(0);
    },
  );

  it('materializes an occurrence that is still ahead (look-ahead window)', () => {
    const plan = planEntry(everyMinute, due, 'skip', new Date(due.getTime() - 1_500));
    expect(pendingTimes(plan)).toEqual([iso(due)]);
    expect(iso(plan.next)).toBe('2026-12-01T10:01:00.000Z');
  });

  it('treats an occurrence exactly misfireGraceMs old as due, one millisecond older as missed', () => {
    const grace = DEFAULT_PLAN_OPTIONS.misfireGraceMs;
    // exactly the grace old: due, run with the occurrence that falls due at that very moment
    expect(pendingTimes(planEntry(everyMinute, due, 'skip', new Date(due.getTime() + grace)))).toEqual([
      iso(due),
      iso(new Date(due.getTime() + MINUTE)),
    ]);
    expect(pendingTimes(planEntry(everyMinute, due, 'skip', new Date(due.getTime() + grace + 1)))).toEqual([]);
  });
});

describe('planEntry: a backlog shorter than the grace period (every second, 45 s behind)', () => {
  const due = at('2026-12-01T10:00:00Z');
  const now = at('2026-12-01T10:00:45.300Z');

  it.each(['run_once', 'skip', 'catch_up'] as const)(
    '%s: the overdue occurrences run, overduePerScan of them per scan, oldest first',
    (policy) => {
      const plan = planEntry(everySecond, due, policy, now);
      expect(pendingTimes(plan)).toEqual(occurrences(everySecond, due, at('2026-12-01T10:00:09Z')));
      expect(skippedTimes(plan)).toEqual([]);
      expect(iso(plan.next)).toBe('2026-12-01T10:00:10.000Z');
      expect(plan.unrecordedSkips).toBe(0);
    },
  );

  it('stops at now: an entry 3 s behind yields the occurrences up to now, the next one ahead', () => {
    const plan = planEntry(everySecond, due, 'run_once', at('2026-12-01T10:00:03.500Z'));
    expect(pendingTimes(plan)).toEqual(occurrences(everySecond, due, at('2026-12-01T10:00:03Z')));
    expect(iso(plan.next)).toBe('2026-12-01T10:00:04.000Z');
  });

  it('repeated scans (200 ms apart) catch up with every occurrence exactly once, none skipped, in a few scans', () => {
    let clock = now.getTime();
    const tick = () => {
      clock += 200; // a scan every 200 ms
      return new Date(clock);
    };
    const { plans, next } = drain(everySecond, due, 'run_once', tick, DEFAULT_PLAN_OPTIONS);
    const ran = plans.flatMap(pendingTimes);
    expect(ran).toEqual(occurrences(everySecond, due, new Date((next as Date).getTime() - SECOND)));
    expect(plans.flatMap(skippedTimes)).toEqual([]);
    // one occurrence a scan would have taken ~57 scans (45 behind, 5 more falling due a second)
    expect(plans.length).toBeLessThanOrEqual(6);
  });

  it('an overduePerScan below 1 still makes the due occurrence', () => {
    const plan = planEntry(everySecond, due, 'run_once', now, { ...DEFAULT_PLAN_OPTIONS, overduePerScan: 0 });
    expect(pendingTimes(plan)).toEqual([iso(due)]);
    expect(iso(plan.next)).toBe('2026-12-01T10:00:01.000Z');
  });
});

describe('planEntry: after an outage (every minute, 10 minutes missed)', () => {
  const due = at('2026-12-01T10:00:00Z');
  const now = at('2026-12-01T10:10:30Z'); // occurrences 10:00 .. 10:10 were missed (11)
  const missed = occurrences(everyMinute, due, at('2026-12-01T10:10:00Z'));

  it('run_once: runs only the latest missed occurrence; the others are recorded skipped (misfire)', () => {
    const plan = planEntry(everyMinute, due, 'run_once', now);
    expect(pendingTimes(plan)).toEqual(['2026-12-01T10:10:00.000Z']);
    expect(skippedTimes(plan)).toEqual(missed.slice(0, -1));
    for (const o of plan.occurrences.filter((x) => x.status === 'skipped')) expect(o.skipReason).toBe('misfire');
    expect(iso(plan.next)).toBe('2026-12-01T10:11:00.000Z');
    expect(plan.next!.getTime()).toBeGreaterThan(now.getTime());
    expect(plan.unrecordedSkips).toBe(0);
  });

  it('skip: every missed occurrence is recorded skipped, nothing runs, the entry moves to the future', () => {
    const plan = planEntry(everyMinute, due, 'skip', now);
    expect(pendingTimes(plan)).toEqual([]);
    expect(skippedTimes(plan)).toEqual(missed);
    expect(plan.occurrences.every((o) => o.skipReason === 'misfire')).toBe(true);
    expect(iso(plan.next)).toBe('2026-12-01T10:11:00.000Z');
    expect(plan.unrecordedSkips).toBe(0);
  });

  it('catch_up: runs the missed occurrences oldest first, at most catchUpPerScan per scan', () => {
    const options = { ...DEFAULT_PLAN_OPTIONS, catchUpPerScan: 4 };
    const first = planEntry(everyMinute, due, 'catch_up', now, options);
    expect(pendingTimes(first)).toEqual(missed.slice(0, 4));
    expect(skippedTimes(first)).toEqual([]);
    expect(iso(first.next)).toBe(missed[4]);

    const { plans, next } = drain(everyMinute, due, 'catch_up', () => now, options);
    expect(plans.map((p) => pendingTimes(p).length)).toEqual([4, 4, 3]);
    expect(plans.flatMap(pendingTimes)).toEqual(missed);
    expect(iso(next)).toBe('2026-12-01T10:11:00.000Z');
  });
});

describe('planEntry: catch_up of more than catchUpMax occurrences', () => {
  const options: PlanOptions = {
    misfireGraceMs: 5 * SECOND,
    catchUpMax: 30,
    catchUpPerScan: 10,
    skipRecordMax: 1_000,
    overduePerScan: 10,
  };
  const due = at('2026-12-01T10:00:00Z');
  const now = at('2026-12-01T10:01:39.500Z'); // 100 occurrences every second: 10:00:00 .. 10:01:39
  const missed = occurrences(everySecond, due, at('2026-12-01T10:01:39Z'));

  it('skips the oldest, keeps the newest catchUpMax, and runs them oldest first', () => {
    expect(missed).toHaveLength(100);
    const plan = planEntry(everySecond, due, 'catch_up', now, options);
    expect(skippedTimes(plan)).toEqual(missed.slice(0, 70));
    expect(pendingTimes(plan)).toEqual(missed.slice(70, 80));
    expect(iso(plan.next)).toBe(missed[80]);
    expect(plan.unrecordedSkips).toBe(0);
  });

  it('repeated scans drain to the future: every occurrence exactly once, at most catchUpMax run', () => {
    const { plans, next } = drain(everySecond, due, 'catch_up', () => now, options);
    const pending = plans.flatMap(pendingTimes);
    const skippedAll = plans.flatMap(skippedTimes);
    expect(pending).toEqual(missed.slice(70));
    expect(skippedAll).toEqual(missed.slice(0, 70));
    expect(plans.every((p) => pendingTimes(p).length <= options.catchUpPerScan)).toBe(true);
    expect(next!.getTime()).toBeGreaterThan(now.getTime());
  });

  it('keeps up while time moves on between scans, without duplicates or gaps', () => {
    let clock = now.getTime();
    const tick = () => {
      clock += 200; // a scan every 200 ms
      return new Date(clock);
    };
    const { plans, now: end, next } = drain(everySecond, due, 'catch_up', tick, options);
    const all = plans.flatMap((p) => p.occurrences.map((o) => iso(o.scheduledTime)));
    expect(new Set(all).size).toBe(all.length);
    expect(all).toEqual(occurrences(everySecond, due, new Date(next!.getTime() - SECOND)));
    expect(next!.getTime()).toBeGreaterThan(end.getTime());
    expect(plans.every((p) => pendingTimes(p).length <= options.catchUpPerScan)).toBe(true);
  });
});

describe('planEntry: a one-off job whose time has passed', () => {
  const runAt = at('2026-12-01T10:00:00Z');
  const once: ScheduleSpec = { type: 'once', runAt };

  it.each([
    ['run_once', 'pending'],
    ['catch_up', 'pending'],
    ['skip', 'skipped'],
  ] as const)('%s: the occurrence is %s and the schedule is exhausted', (policy, status) => {
    const plan = planEntry(once, runAt, policy, new Date(runAt.getTime() + 10 * MINUTE));
    expect(plan.occurrences).toEqual([
      { scheduledTime: runAt, status, skipReason: status === 'skipped' ? 'misfire' : null },
    ]);
    expect(plan.next).toBeNull();
    expect(plan.unrecordedSkips).toBe(0);
  });

  it('within the grace period it simply runs, under any policy', () => {
    const plan = planEntry(once, runAt, 'skip', new Date(runAt.getTime() + 5 * SECOND));
    expect(pendingTimes(plan)).toEqual([iso(runAt)]);
    expect(plan.next).toBeNull();
  });
});

describe('planEntry: every second, down for 30 days', () => {
  const due = at('2026-11-01T00:00:01Z');
  const now = at('2026-12-01T00:00:00.500Z');
  const total = 30 * 24 * 3600; // 00:00:01 on day 1 .. 00:00:00 on day 31
  const max = DEFAULT_PLAN_OPTIONS.skipRecordMax;

  // A generous timeout, not a measurement: walking every missed occurrence took seconds.
  it('run_once: bounded records, the rest counted, one run at the latest', { timeout: 5_000 }, () => {
    const plan = planEntry(everySecond, due, 'run_once', now);
    expect(pendingTimes(plan)).toEqual(['2026-12-01T00:00:00.000Z']);
    expect(skippedTimes(plan)).toHaveLength(max);
    expect(skippedTimes(plan)[0]).toBe(iso(due));
    expect(plan.unrecordedSkips).toBe(total - 1 - max);
    expect(iso(plan.next)).toBe('2026-12-01T00:00:01.000Z');
  });

  it('skip: bounded records, the rest counted, next in the future', { timeout: 5_000 }, () => {
    const plan = planEntry(everySecond, due, 'skip', now);
    expect(plan.occurrences).toHaveLength(max);
    expect(pendingTimes(plan)).toEqual([]);
    expect(plan.unrecordedSkips).toBe(total - max);
    expect(iso(plan.next)).toBe('2026-12-01T00:00:01.000Z');
  });

  it('catch_up: the newest catchUpMax run, the oldest are recorded up to skipRecordMax', { timeout: 5_000 }, () => {
    const { catchUpMax, catchUpPerScan } = DEFAULT_PLAN_OPTIONS;
    const plan = planEntry(everySecond, due, 'catch_up', now);
    const firstRun = new Date(now.getTime() - 500 - (catchUpMax - 1) * SECOND);
    expect(pendingTimes(plan)).toEqual(
      occurrences(everySecond, firstRun, new Date(firstRun.getTime() + (catchUpPerScan - 1) * SECOND)),
    );
    expect(skippedTimes(plan)).toHaveLength(max);
    expect(skippedTimes(plan)[0]).toBe(iso(due));
    expect(plan.unrecordedSkips).toBe(total - catchUpMax - max);
    expect(plan.occurrences.length).toBeLessThanOrEqual(max + catchUpPerScan);

    const { plans, next } = drain(everySecond, due, 'catch_up', () => now, DEFAULT_PLAN_OPTIONS);
    expect(plans.flatMap(pendingTimes)).toEqual(occurrences(everySecond, firstRun, at('2026-12-01T00:00:00Z')));
    expect(iso(next)).toBe('2026-12-01T00:00:01.000Z');
  });
});

describe('planEntry: cron in a zone with daylight saving (Europe/Berlin)', () => {
  const daily: ScheduleSpec = { type: 'cron', expression: '30 2 * * *', timezone: 'Europe/Berlin' };
  const hourly: ScheduleSpec = { type: 'cron', expression: '30 * * * *', timezone: 'Europe/Berlin' };

  it('a 02:30 that does not exist (spring forward) runs once at 03:30 CEST; the next is 02:30 CEST', () => {
    const due = at('2026-03-29T01:30:00Z'); // 03:30 CEST, shifted out of the 02:00-03:00 gap
    expect(nextFireTime(daily, at('2026-03-28T12:00:00Z'))).toEqual(due);
    const plan = planEntry(daily, due, 'run_once', new Date(due.getTime() + SECOND));
    expect(pendingTimes(plan)).toEqual([iso(due)]);
    expect(iso(plan.next)).toBe('2026-03-30T00:30:00.000Z');
  });

  it('run_once across the change: the days before are skipped, the latest wall-clock 02:30 runs', () => {
    const plan = planEntry(daily, at('2026-03-28T01:30:00Z'), 'run_once', at('2026-03-30T12:00:00Z'));
    expect(skippedTimes(plan)).toEqual(['2026-03-28T01:30:00.000Z', '2026-03-29T01:30:00.000Z']);
    expect(pendingTimes(plan)).toEqual(['2026-03-30T00:30:00.000Z']);
    expect(iso(plan.next)).toBe('2026-03-31T00:30:00.000Z');
  });

  it('fall back: a fixed hour fires once (first 02:30); an hourly expression fires at both 02:30s', () => {
    const day = planEntry(daily, at('2026-10-24T00:30:00Z'), 'skip', at('2026-10-26T12:00:00Z'));
    expect(skippedTimes(day)).toEqual([
      '2026-10-24T00:30:00.000Z',
      '2026-10-25T00:30:00.000Z',
      '2026-10-26T01:30:00.000Z',
    ]);
    expect(iso(day.next)).toBe('2026-10-27T01:30:00.000Z');

    const hours = planEntry(hourly, at('2026-10-24T23:30:00Z'), 'catch_up', at('2026-10-25T03:00:00Z'));
    expect(pendingTimes(hours)).toEqual([
      '2026-10-24T23:30:00.000Z', // 01:30 CEST
      '2026-10-25T00:30:00.000Z', // 02:30 CEST
      '2026-10-25T01:30:00.000Z', // 02:30 CET
      '2026-10-25T02:30:00.000Z', // 03:30 CET
    ]);
    expect(iso(hours.next)).toBe('2026-10-25T03:30:00.000Z');
  });
});
