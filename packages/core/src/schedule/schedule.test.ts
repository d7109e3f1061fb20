import { describe, expect, it } from 'vitest';
import {
  type ScheduleSpec,
  countFireTimesBetween,
  dstNoteFor,
  fireTimesBetween,
  latestFireTimeAtOrBefore,
  nextFireTime,
  nextFireTimes,
  validateScheduleSpec,
} from './index';

const d = (iso: string) => new Date(iso);
const iso = (dates: Date[]) => dates.map((x) => x.toISOString());

describe('once', () => {
  const spec: ScheduleSpec = { type: 'once', runAt: d('2026-05-01T10:00:00Z') };

  it('fires only while runAt is strictly ahead', () => {
    expect(iso(nextFireTimes(spec, d('2026-05-01T09:59:59.999Z'), 3))).toEqual(['2026-05-01T10:00:00.000Z']);
    expect(nextFireTimes(spec, d('2026-05-01T10:00:00Z'), 3)).toEqual([]);
    expect(nextFireTime(spec, d('2026-06-01T00:00:00Z'))).toBeNull();
  });

  it('ranges are (from, to]', () => {
    expect(fireTimesBetween(spec, d('2026-05-01T10:00:00Z'), d('2026-06-01T00:00:00Z'), 10)).toEqual([]);
    expect(iso(fireTimesBetween(spec, d('2026-05-01T00:00:00Z'), d('2026-05-01T10:00:00Z'), 10))).toEqual([
      '2026-05-01T10:00:00.000Z',
    ]);
    expect(countFireTimesBetween(spec, d('2026-05-01T00:00:00Z'), d('2026-05-01T10:00:00Z'))).toBe(1);
    expect(latestFireTimeAtOrBefore(spec, d('2026-04-01T00:00:00Z'), d('2026-05-01T10:00:00Z'))).toEqual(
      d('2026-05-01T10:00:00Z'),
    );
    expect(latestFireTimeAtOrBefore(spec, d('2026-05-01T10:00:00Z'), d('2026-07-01T00:00:00Z'))).toBeNull();
  });

  it('returns a copy, not the spec Date', () => {
    const [first] = nextFireTimes(spec, d('2026-01-01T00:00:00Z'), 1);
    expect(first).not.toBe(spec.runAt);
  });
});

describe('interval', () => {
  const anchor = d('2026-01-01T00:00:00.250Z');
  const spec: ScheduleSpec = { type: 'interval', everySeconds: 90, anchor };

  it('fires at anchor + k*period for k >= 1, strictly after', () => {
    expect(iso(nextFireTimes(spec, d('2025-06-01T00:00:00Z'), 2))).toEqual([
      '2026-01-01T00:01:30.250Z',
      '2026-01-01T00:03:00.250Z',
    ]);
    expect(iso(nextFireTimes(spec, anchor, 1))).toEqual(['2026-01-01T00:01:30.250Z']);
    expect(iso(nextFireTimes(spec, d('2026-01-01T00:01:30.250Z'), 1))).toEqual(['2026-01-01T00:03:00.250Z']);
    expect(iso(nextFireTimes(spec, d('2026-01-01T00:01:30.249Z'), 1))).toEqual(['2026-01-01T00:01:30.250Z']);
  });

  it('ignores time zones and DST: every real 3600 s', () => {
    const hourly: ScheduleSpec = { type: 'interval', everySeconds: 3600, anchor: d('2026-03-29T00:00:00Z') };
    expect(iso(nextFireTimes(hourly, d('2026-03-29T00:00:00Z'), 3))).toEqual([
      '2026-03-29T01:00:00.000Z',
      '2026-03-29T02:00:00.000Z',
      '2026-03-29T03:00:00.000Z',
    ]);
    expect(dstNoteFor(hourly, d('2026-03-29T01:00:00Z'))).toBeNull();
  });

  it('handles a range of ten million occurrences in constant time', () => {
    const everySecond: ScheduleSpec = { type: 'interval', everySeconds: 1, anchor: d('2026-01-01T00:00:00Z') };
    const from = d('2026-01-01T00:00:00Z');
    const to = new Date(from.getTime() + 10_000_000_000);
    expect(countFireTimesBetween(everySecond, from, to)).toBe(10_000_000);
    expect(countFireTimesBetween(everySecond, from, to, 500)).toBe(500);
    expect(latestFireTimeAtOrBefore(everySecond, from, to)).toEqual(to);
    const limited = fireTimesBetween(everySecond, from, to, 3);
    expect(iso(limited)).toEqual(['2026-01-01T00:00:01.000Z', '2026-01-01T00:00:02.000Z', '2026-01-01T00:00:03.000Z']);
    // Six billion occurrences: only arithmetic gets through this within the test timeout.
    const farTo = d('2216-01-01T00:00:00Z');
    expect(countFireTimesBetween(everySecond, from, farTo)).toBe((farTo.getTime() - from.getTime()) / 1000);
    expect(latestFireTimeAtOrBefore(everySecond, from, farTo)).toEqual(farTo);
  });

  it('latest is null before the first occurrence and respects from', () => {
    expect(latestFireTimeAtOrBefore(spec, d('2025-01-01T00:00:00Z'), d('2026-01-01T00:01:00Z'))).toBeNull();
    expect(latestFireTimeAtOrBefore(spec, d('2026-01-01T00:01:30.250Z'), d('2026-01-01T00:02:59Z'))).toBeNull();
    expect(latestFireTimeAtOrBefore(spec, d('2026-01-01T00:00:00Z'), d('2026-01-01T00:04:00Z'))).toEqual(
      d('2026-01-01T00:03:00.250Z'),
    );
    expect(countFireTimesBetween(spec, d('2026-01-01T00:01:30.250Z'), d('2026-01-01T00:04:30.250Z'))).toBe(2);
  });

  it('rejects invalid periods', () => {
    const bad: ScheduleSpec = { type: 'interval', everySeconds: 0, anchor };
    expect(() => nextFireTime(bad, anchor)).toThrow('everySeconds must be a whole number of seconds >= 1, got 0');
    expect(validateScheduleSpec({ type: 'interval', everySeconds: 1.5, anchor })).toBe(
      'everySeconds must be a whole number of seconds >= 1, got 1.5',
    );
  });
});

describe('cron through the public API', () => {
  const spec: ScheduleSpec = { type: 'cron', expression: '0 9 * * 1-5', timezone: 'Europe/Berlin' };

  it('is strictly after: a time equal to a fire time excludes it', () => {
    expect(iso(nextFireTimes(spec, d('2026-06-01T07:00:00Z'), 2))).toEqual([
      '2026-06-02T07:00:00.000Z',
      '2026-06-03T07:00:00.000Z',
    ]);
    expect(nextFireTime(spec, d('2026-06-01T06:59:59.999Z'))).toEqual(d('2026-06-01T07:00:00Z'));
    expect(nextFireTime(spec, d('2026-06-01T07:00:00.001Z'))).toEqual(d('2026-06-02T07:00:00Z'));
    expect(nextFireTimes(spec, d('2026-06-01T07:00:00Z'), 0)).toEqual([]);
  });

  it('lists and counts ranges, and finds the latest missed run', () => {
    const from = d('2026-06-01T07:00:00Z');
    const to = d('2026-06-08T07:00:00Z');
    expect(iso(fireTimesBetween(spec, from, to, 10))).toEqual([
      '2026-06-02T07:00:00.000Z',
      '2026-06-03T07:00:00.000Z',
      '2026-06-04T07:00:00.000Z',
      '2026-06-05T07:00:00.000Z',
      '2026-06-08T07:00:00.000Z',
    ]);
    expect(fireTimesBetween(spec, from, to, 2)).toHaveLength(2);
    expect(countFireTimesBetween(spec, from, to)).toBe(5);
    expect(countFireTimesBetween(spec, from, to, 3)).toBe(3);
    expect(latestFireTimeAtOrBefore(spec, from, to)).toEqual(to);
    expect(latestFireTimeAtOrBefore(spec, from, d('2026-06-07T23:00:00Z'))).toEqual(d('2026-06-05T07:00:00Z'));
    expect(latestFireTimeAtOrBefore(spec, d('2026-06-05T07:00:00Z'), d('2026-06-07T23:00:00Z'))).toBeNull();
  });

  it('finds the latest run of a frequent expression after a long outage without walking it', () => {
    const everySecond: ScheduleSpec = { type: 'cron', expression: '* * * * * *', timezone: 'America/New_York' };
    expect(latestFireTimeAtOrBefore(everySecond, d('2025-01-01T00:00:00Z'), d('2026-11-01T06:30:00.5Z'))).toEqual(
      d('2026-11-01T06:30:00Z'),
    );
  });

  it('throws on invalid specs with the validation message', () => {
    expect(() =>
      nextFireTime({ type: 'cron', expression: '* * *', timezone: 'UTC' }, d('2026-01-01T00:00:00Z')),
    ).toThrow('cron expression must have 5 or 6 fields');
    expect(() => nextFireTime({ type: 'cron', expression: '* * * * *', timezone: 'Mars/Base' }, new Date())).toThrow(
      "unknown time zone 'Mars/Base'",
    );
    expect(() => nextFireTime(spec, new Date(Number.NaN))).toThrow('after must be a valid Date');
    expect(validateScheduleSpec({ type: 'cron', expression: '0 0 30 2 *', timezone: 'UTC' })).toMatch(/never fires/);
    expect(validateScheduleSpec({ type: 'cron', expression: '0 0 * * *', timezone: 'Nowhere' })).toBe(
      "unknown time zone 'Nowhere'",
    );
    expect(validateScheduleSpec(spec)).toBeNull();
    expect(validateScheduleSpec({ type: 'weekly' } as unknown as ScheduleSpec)).toBe("unknown schedule type 'weekly'");
  });

  it('crosses New Year in zones far from UTC (segments are cut at UTC year ends)', () => {
    const newYear = (timezone: string): ScheduleSpec => ({ type: 'cron', expression: '0 0 1 1 *', timezone });
    expect(nextFireTime(newYear('Pacific/Kiritimati'), d('2026-06-01T00:00:00Z'))).toEqual(d('2026-12-31T10:00:00Z'));
    expect(nextFireTime(newYear('Pacific/Honolulu'), d('2026-06-01T00:00:00Z'))).toEqual(d('2027-01-01T10:00:00Z'));
    expect(
      latestFireTimeAtOrBefore(newYear('Pacific/Kiritimati'), d('2026-06-01T00:00:00Z'), d('2027-06-01T00:00:00Z')),
    ).toEqual(d('2026-12-31T10:00:00Z'));
  });

  it('works before 1970', () => {
    expect(nextFireTime({ type: 'cron', expression: '0 0 * * *', timezone: 'UTC' }, d('1969-12-31T12:00:00Z'))).toEqual(
      d('1970-01-01T00:00:00Z'),
    );
    expect(
      nextFireTime({ type: 'cron', expression: '0 12 * * *', timezone: 'Europe/Berlin' }, d('1960-06-01T00:00:00Z')),
    ).toEqual(d('1960-06-01T11:00:00Z'));
  });

  it('returns null past year 9999 instead of looping', () => {
    const yearly: ScheduleSpec = { type: 'cron', expression: '0 0 1 1 *', timezone: 'UTC' };
    expect(nextFireTime(yearly, d('9999-06-01T00:00:00Z'))).toBeNull();
  });
});

describe('dstNoteFor', () => {
  const note = (expression: string, timezone: string, at: string) =>
    dstNoteFor({ type: 'cron', expression, timezone }, d(at));

  it('explains a time shifted out of a gap', () => {
    expect(note('30 2 * * *', 'Europe/Berlin', '2026-03-29T01:30:00Z')).toBe(
      '02:30 does not exist on 2026-03-29 in Europe/Berlin (clocks jump from 02:00 to 03:00); this run happens at 03:30 instead',
    );
    expect(note('30 2,3 * * *', 'Europe/Berlin', '2026-03-29T01:30:00Z')).toBe(
      '02:30 does not exist on 2026-03-29 in Europe/Berlin (clocks jump from 02:00 to 03:00); this run happens at 03:30 instead, the same moment as its regular 03:30 run, so it runs once',
    );
  });

  it('explains repeated times', () => {
    expect(note('30 1 * * *', 'America/New_York', '2026-11-01T05:30:00Z')).toBe(
      '01:30 occurs twice on 2026-11-01 in America/New_York (clocks go back from 02:00 to 01:00); this schedule runs only at the first occurrence (UTC-04:00)',
    );
    expect(note('*/30 * * * *', 'America/New_York', '2026-11-01T06:30:00Z')).toBe(
      '01:30 occurs twice on 2026-11-01 in America/New_York (clocks go back from 02:00 to 01:00); the hour field matches every hour, so it runs at both; this is the second (UTC-05:00)',
    );
  });

  it('flags other runs on the day of a change, and nothing otherwise', () => {
    expect(note('0 12 * * *', 'Europe/Berlin', '2026-10-25T11:00:00Z')).toBe(
      'clocks go back in Europe/Berlin at 2026-10-25 03:00 (to 02:00, UTC+02:00 → UTC+01:00); this run is at UTC+01:00',
    );
    expect(note('0 0 * * *', 'America/Santiago', '2026-09-05T04:00:00Z')).toBeNull();
    expect(note('0 12 * * *', 'Europe/Berlin', '2026-10-26T11:00:00Z')).toBeNull();
    expect(note('0 12 * * *', 'Asia/Kolkata', '2026-10-25T06:30:00Z')).toBeNull();
    expect(note('0 12 * * *', 'UTC', '2026-10-25T12:00:00Z')).toBeNull();
    expect(dstNoteFor({ type: 'once', runAt: d('2026-03-29T01:30:00Z') }, d('2026-03-29T01:30:00Z'))).toBeNull();
  });
});

describe('cost', () => {
  it('computes 10,000 nextFireTime calls on a cached expression (time printed, not asserted)', () => {
    const specs: ScheduleSpec[] = [
      { type: 'cron', expression: '*/5 9-17 * * 1-5', timezone: 'Europe/Berlin' },
      { type: 'cron', expression: '30 2 * * *', timezone: 'America/New_York' },
      { type: 'cron', expression: '0 0 1 * *', timezone: 'UTC' },
    ];
    const base = Date.UTC(2026, 0, 1);
    for (const spec of specs) {
      nextFireTime(spec, new Date(base)); // warm the caches
      let last: Date | null = null;
      const started = performance.now();
      for (let i = 0; i < 10_000; i++) last = nextFireTime(spec, new Date(base + i * 3_137_000));
      const ms = performance.now() - started;
      console.log(
        `10,000 nextFireTime calls for '${(spec as { expression: string }).expression}': ${ms.toFixed(1)} ms (${((ms * 1000) / 10_000).toFixed(2)} µs/call)`,
      );
      expect(last).toBeInstanceOf(Date);
    }
  });
});
