// The daylight-saving contract, case by case, around real 2026 transitions (dates verified
// against Intl in zone.test.ts). Expected instants are worked out by hand from the contract.
import { describe, expect, it } from 'vitest';
import { type ScheduleSpec, latestFireTimeAtOrBefore, nextFireTime, nextFireTimes } from './index';

function cron(expression: string, timezone: string): ScheduleSpec {
  return { type: 'cron', expression, timezone };
}

function next(expression: string, timezone: string, after: string, count: number): string[] {
  return nextFireTimes(cron(expression, timezone), new Date(after), count).map((d) =>
    d.toISOString().replace('.000', ''),
  );
}

describe('Europe/Berlin, spring forward 2026-03-29 02:00 CET -> 03:00 CEST (01:00Z)', () => {
  it('fires a daily time inside the gap once, shifted by the gap', () => {
    expect(next('30 2 * * *', 'Europe/Berlin', '2026-03-28T12:00:00Z', 3)).toEqual([
      '2026-03-29T01:30:00Z', // 03:30 CEST
      '2026-03-30T00:30:00Z',
      '2026-03-31T00:30:00Z',
    ]);
  });

  it('shifts each quarter hour of the missing hour', () => {
    expect(next('*/15 2 * * *', 'Europe/Berlin', '2026-03-28T12:00:00Z', 5)).toEqual([
      '2026-03-29T01:00:00Z',
      '2026-03-29T01:15:00Z',
      '2026-03-29T01:30:00Z',
      '2026-03-29T01:45:00Z',
      '2026-03-30T00:00:00Z',
    ]);
  });

  it('never fires twice when the shifted time is also a fire time', () => {
    expect(next('30 2,3 * * *', 'Europe/Berlin', '2026-03-28T12:00:00Z', 3)).toEqual([
      '2026-03-29T01:30:00Z',
      '2026-03-30T00:30:00Z',
      '2026-03-30T01:30:00Z',
    ]);
    expect(next('30 * * * *', 'Europe/Berlin', '2026-03-29T00:00:00Z', 3)).toEqual([
      '2026-03-29T00:30:00Z', // 01:30 CET
      '2026-03-29T01:30:00Z', // 03:30 CEST, also where 02:30 lands
      '2026-03-29T02:30:00Z',
    ]);
    expect(next('*/20 * * * *', 'Europe/Berlin', '2026-03-29T00:30:00Z', 6)).toEqual([
      '2026-03-29T00:40:00Z',
      '2026-03-29T01:00:00Z',
      '2026-03-29T01:20:00Z',
      '2026-03-29T01:40:00Z',
      '2026-03-29T02:00:00Z',
      '2026-03-29T02:20:00Z',
    ]);
  });

  it('still fires a shifted time when asked from between the gap and the shifted instant', () => {
    expect(next('30 2 * * *', 'Europe/Berlin', '2026-03-29T01:10:00Z', 1)).toEqual(['2026-03-29T01:30:00Z']);
    expect(next('30 2 * * *', 'Europe/Berlin', '2026-03-29T01:29:59.999Z', 1)).toEqual(['2026-03-29T01:30:00Z']);
  });

  it('is strictly after: asking from a shifted fire time moves on', () => {
    expect(next('30 2 * * *', 'Europe/Berlin', '2026-03-29T01:30:00Z', 1)).toEqual(['2026-03-30T00:30:00Z']);
  });

  it('handles 6-field expressions with seconds in the gap', () => {
    expect(next('15 30 2 * * *', 'Europe/Berlin', '2026-03-28T12:00:00Z', 2)).toEqual([
      '2026-03-29T01:30:15Z',
      '2026-03-30T00:30:15Z',
    ]);
    const everySecond = next('* 59 2 * * *', 'Europe/Berlin', '2026-03-28T12:00:00Z', 61);
    expect(everySecond[0]).toBe('2026-03-29T01:59:00Z');
    expect(everySecond[59]).toBe('2026-03-29T01:59:59Z');
    expect(everySecond[60]).toBe('2026-03-30T00:59:00Z');
  });
});

describe('Europe/Berlin, fall back 2026-10-25 03:00 CEST -> 02:00 CET (01:00Z)', () => {
  it('fires a fixed-hour time once, at its first occurrence', () => {
    expect(next('30 2 * * *', 'Europe/Berlin', '2026-10-24T12:00:00Z', 2)).toEqual([
      '2026-10-25T00:30:00Z', // 02:30 CEST
      '2026-10-26T01:30:00Z',
    ]);
    expect(next('0,30 2 * * *', 'Europe/Berlin', '2026-10-24T12:00:00Z', 3)).toEqual([
      '2026-10-25T00:00:00Z',
      '2026-10-25T00:30:00Z',
      '2026-10-26T01:00:00Z',
    ]);
  });

  it('does not fire the second occurrence when asked from between the two', () => {
    expect(next('30 2 * * *', 'Europe/Berlin', '2026-10-25T00:45:00Z', 1)).toEqual(['2026-10-26T01:30:00Z']);
  });

  it('fires every matching instant when the hour field is *', () => {
    expect(next('*/30 * * * *', 'Europe/Berlin', '2026-10-24T23:00:00Z', 6)).toEqual([
      '2026-10-24T23:30:00Z', // 01:30 CEST
      '2026-10-25T00:00:00Z', // 02:00 CEST
      '2026-10-25T00:30:00Z', // 02:30 CEST
      '2026-10-25T01:00:00Z', // 02:00 CET
      '2026-10-25T01:30:00Z', // 02:30 CET
      '2026-10-25T02:00:00Z', // 03:00 CET
    ]);
    expect(next('0 0 * * * *', 'Europe/Berlin', '2026-10-24T23:30:00Z', 3)).toEqual([
      '2026-10-25T00:00:00Z',
      '2026-10-25T01:00:00Z',
      '2026-10-25T02:00:00Z',
    ]);
  });

  it('treats an hour field covering every hour like * and a stepped one like a fixed hour', () => {
    expect(next('0 0-23 * * *', 'Europe/Berlin', '2026-10-24T23:30:00Z', 2)).toEqual([
      '2026-10-25T00:00:00Z',
      '2026-10-25T01:00:00Z',
    ]);
    expect(next('0 */2 * * *', 'Europe/Berlin', '2026-10-24T22:00:00Z', 2)).toEqual([
      '2026-10-25T00:00:00Z', // 02:00 CEST; 02:00 CET is skipped
      '2026-10-25T03:00:00Z', // 04:00 CET
    ]);
  });
});

describe('America/New_York, 2026-03-08 and 2026-11-01', () => {
  it('spring: 02:30 fires at 03:30 EDT; 02:00 and 03:00 coincide', () => {
    expect(next('30 2 * * *', 'America/New_York', '2026-03-07T12:00:00Z', 2)).toEqual([
      '2026-03-08T07:30:00Z',
      '2026-03-09T06:30:00Z',
    ]);
    expect(next('0 2,3 * * *', 'America/New_York', '2026-03-07T12:00:00Z', 3)).toEqual([
      '2026-03-08T07:00:00Z',
      '2026-03-09T06:00:00Z',
      '2026-03-09T07:00:00Z',
    ]);
  });

  it('fall: 30 1 * * * fires once, at 01:30 EDT', () => {
    expect(next('30 1 * * *', 'America/New_York', '2026-10-31T12:00:00Z', 2)).toEqual([
      '2026-11-01T05:30:00Z',
      '2026-11-02T06:30:00Z',
    ]);
    expect(next('30 1 * * *', 'America/New_York', '2026-11-01T05:30:00Z', 1)).toEqual(['2026-11-02T06:30:00Z']);
  });

  it('fall: */30 * * * * fires 01:00 and 01:30 in both EDT and EST', () => {
    expect(next('*/30 * * * *', 'America/New_York', '2026-11-01T04:45:00Z', 5)).toEqual([
      '2026-11-01T05:00:00Z',
      '2026-11-01T05:30:00Z',
      '2026-11-01T06:00:00Z',
      '2026-11-01T06:30:00Z',
      '2026-11-01T07:00:00Z',
    ]);
    expect(next('*/30 * * * *', 'America/New_York', '2026-11-01T05:45:00Z', 1)).toEqual(['2026-11-01T06:00:00Z']);
  });
});

describe('Australia/Lord_Howe, 30-minute changes', () => {
  it('spring 2026-10-04 02:00 -> 02:30: 02:15 fires at 02:45', () => {
    expect(next('15 2 * * *', 'Australia/Lord_Howe', '2026-10-03T00:00:00Z', 2)).toEqual([
      '2026-10-03T15:45:00Z',
      '2026-10-04T15:15:00Z',
    ]);
    expect(next('0 2 * * *', 'Australia/Lord_Howe', '2026-10-03T00:00:00Z', 1)).toEqual(['2026-10-03T15:30:00Z']);
  });

  it('spring: keeps the real 02:30 and 02:45 and merges the shifted 02:00 and 02:15 into them', () => {
    expect(next('*/15 * * * *', 'Australia/Lord_Howe', '2026-10-03T15:00:00Z', 4)).toEqual([
      '2026-10-03T15:15:00Z', // 01:45 +10:30
      '2026-10-03T15:30:00Z', // 02:30 +11 (and 02:00 shifted)
      '2026-10-03T15:45:00Z', // 02:45 +11 (and 02:15 shifted)
      '2026-10-03T16:00:00Z',
    ]);
  });

  it('fall 2026-04-05 02:00 -> 01:30: fixed hour once, every-hour at both instants', () => {
    expect(next('45 1 * * *', 'Australia/Lord_Howe', '2026-04-04T00:00:00Z', 2)).toEqual([
      '2026-04-04T14:45:00Z',
      '2026-04-05T15:15:00Z',
    ]);
    expect(next('*/15 1 * * *', 'Australia/Lord_Howe', '2026-04-04T13:50:00Z', 5)).toEqual([
      '2026-04-04T14:00:00Z',
      '2026-04-04T14:15:00Z',
      '2026-04-04T14:30:00Z',
      '2026-04-04T14:45:00Z',
      '2026-04-05T14:30:00Z', // 01:00 +10:30 next day
    ]);
    expect(next('*/15 * * * *', 'Australia/Lord_Howe', '2026-04-04T14:00:00Z', 7)).toEqual([
      '2026-04-04T14:15:00Z',
      '2026-04-04T14:30:00Z',
      '2026-04-04T14:45:00Z',
      '2026-04-04T15:00:00Z', // 01:30 +10:30
      '2026-04-04T15:15:00Z', // 01:45 +10:30
      '2026-04-04T15:30:00Z',
      '2026-04-04T15:45:00Z',
    ]);
  });
});

describe('America/Santiago, changes at midnight', () => {
  it('spring 2026-09-06: midnight does not exist and fires at 01:00', () => {
    expect(next('0 0 * * *', 'America/Santiago', '2026-09-04T12:00:00Z', 3)).toEqual([
      '2026-09-05T04:00:00Z',
      '2026-09-06T04:00:00Z', // 01:00 -03
      '2026-09-07T03:00:00Z',
    ]);
    expect(next('0 0,1 * * *', 'America/Santiago', '2026-09-05T12:00:00Z', 3)).toEqual([
      '2026-09-06T04:00:00Z',
      '2026-09-07T03:00:00Z',
      '2026-09-07T04:00:00Z',
    ]);
    expect(next('0 0 6 9 *', 'America/Santiago', '2026-01-01T00:00:00Z', 1)).toEqual(['2026-09-06T04:00:00Z']);
  });

  it('fall 2026-04-05: 23:00 on the 4th happens twice, midnight once', () => {
    expect(next('0 23 * * *', 'America/Santiago', '2026-04-03T12:00:00Z', 3)).toEqual([
      '2026-04-04T02:00:00Z',
      '2026-04-05T02:00:00Z', // first 23:00 (-03)
      '2026-04-06T03:00:00Z',
    ]);
    expect(next('0 0 * * *', 'America/Santiago', '2026-04-03T12:00:00Z', 2)).toEqual([
      '2026-04-04T03:00:00Z',
      '2026-04-05T04:00:00Z',
    ]);
    expect(next('*/30 * * * *', 'America/Santiago', '2026-04-05T01:45:00Z', 5)).toEqual([
      '2026-04-05T02:00:00Z',
      '2026-04-05T02:30:00Z',
      '2026-04-05T03:00:00Z',
      '2026-04-05T03:30:00Z',
      '2026-04-05T04:00:00Z',
    ]);
  });
});

describe('zones without DST', () => {
  it('Asia/Kolkata is a fixed +05:30', () => {
    expect(next('30 2 * * *', 'Asia/Kolkata', '2026-03-28T12:00:00Z', 2)).toEqual([
      '2026-03-28T21:00:00Z',
      '2026-03-29T21:00:00Z',
    ]);
    expect(next('0 9 * * 1-5', 'Asia/Kolkata', '2026-01-01T00:00:00Z', 3)).toEqual([
      '2026-01-01T03:30:00Z',
      '2026-01-02T03:30:00Z',
      '2026-01-05T03:30:00Z',
    ]);
  });

  it('UTC', () => {
    expect(next('0 0 * * *', 'UTC', '2026-12-31T00:00:00Z', 2)).toEqual([
      '2027-01-01T00:00:00Z',
      '2027-01-02T00:00:00Z',
    ]);
    expect(next('0 0 29 2 *', 'UTC', '2026-01-01T00:00:00Z', 2)).toEqual([
      '2028-02-29T00:00:00Z',
      '2032-02-29T00:00:00Z',
    ]);
    expect(next('0 0 * 2 1#5', 'UTC', '2026-01-01T00:00:00Z', 1)).toEqual(['2044-02-29T00:00:00Z']);
  });
});

describe('backwards search agrees with the contract', () => {
  it('latestFireTimeAtOrBefore sees shifted times and skips second occurrences', () => {
    const berlin = cron('30 2 * * *', 'Europe/Berlin');
    const latest = (spec: ScheduleSpec, from: string, at: string) =>
      latestFireTimeAtOrBefore(spec, new Date(from), new Date(at))?.toISOString() ?? null;
    expect(latest(berlin, '2026-03-28T00:00:00Z', '2026-03-29T01:40:00Z')).toBe('2026-03-29T01:30:00.000Z');
    expect(latest(berlin, '2026-03-28T00:00:00Z', '2026-03-29T01:29:59Z')).toBe('2026-03-28T01:30:00.000Z');
    expect(latest(berlin, '2026-10-24T12:00:00Z', '2026-10-25T01:59:00Z')).toBe('2026-10-25T00:30:00.000Z');
    expect(latest(berlin, '2026-10-25T00:30:00Z', '2026-10-25T01:59:00Z')).toBeNull();
    const ny = cron('*/30 * * * *', 'America/New_York');
    expect(latest(ny, '2026-11-01T00:00:00Z', '2026-11-01T06:45:00Z')).toBe('2026-11-01T06:30:00.000Z');
    expect(nextFireTime(ny, new Date('2026-11-01T06:30:00Z'))?.toISOString()).toBe('2026-11-01T07:00:00.000Z');
  });
});
