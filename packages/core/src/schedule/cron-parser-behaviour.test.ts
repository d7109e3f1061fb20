// Learning tests: what cron-parser 5.10.6's own iterator does around clock changes. They
// pin down why schedule/ only uses cron-parser to parse and does its own DST handling. If a
// cron-parser upgrade changes these, re-read them before trusting the library more.
import { CronExpressionParser } from 'cron-parser';
import { describe, expect, it } from 'vitest';

function rawNext(expression: string, tz: string, start: string, count: number): string[] {
  const it = CronExpressionParser.parse(expression, { currentDate: new Date(start), tz });
  return it.take(count).map((d) => (d.toISOString() ?? '').replace('.000', ''));
}

describe('cron-parser: where it already agrees with our DST contract', () => {
  it('shifts a time inside a one-hour gap forward by the gap (Berlin 02:30 -> 03:30 CEST)', () => {
    expect(rawNext('30 2 * * *', 'Europe/Berlin', '2026-03-28T12:00:00Z', 2)).toEqual([
      '2026-03-29T01:30:00Z',
      '2026-03-30T00:30:00Z',
    ]);
    expect(rawNext('*/15 2 * * *', 'Europe/Berlin', '2026-03-28T12:00:00Z', 4)).toEqual([
      '2026-03-29T01:00:00Z',
      '2026-03-29T01:15:00Z',
      '2026-03-29T01:30:00Z',
      '2026-03-29T01:45:00Z',
    ]);
  });

  it('fires a shifted time that lands on another fire time once', () => {
    expect(rawNext('30 2,3 * * *', 'Europe/Berlin', '2026-03-28T12:00:00Z', 2)).toEqual([
      '2026-03-29T01:30:00Z',
      '2026-03-30T00:30:00Z',
    ]);
  });

  it('fires a repeated time once when the hour field is fixed, at both instants for "*"', () => {
    expect(rawNext('30 1 * * *', 'America/New_York', '2026-10-31T12:00:00Z', 2)).toEqual([
      '2026-11-01T05:30:00Z',
      '2026-11-02T06:30:00Z',
    ]);
    expect(rawNext('*/30 * * * *', 'America/New_York', '2026-11-01T04:45:00Z', 4)).toEqual([
      '2026-11-01T05:00:00Z',
      '2026-11-01T05:30:00Z',
      '2026-11-01T06:00:00Z',
      '2026-11-01T06:30:00Z',
    ]);
  });

  it('handles Santiago changing at midnight (00:00 missing in September, 23:00 twice in April)', () => {
    expect(rawNext('0 0 * * *', 'America/Santiago', '2026-09-05T12:00:00Z', 1)).toEqual(['2026-09-06T04:00:00Z']);
    expect(rawNext('0 * * * *', 'America/Santiago', '2026-04-05T01:30:00Z', 3)).toEqual([
      '2026-04-05T02:00:00Z',
      '2026-04-05T03:00:00Z',
      '2026-04-05T04:00:00Z',
    ]);
  });
});

describe('cron-parser: where it breaks the contract', () => {
  it('drops the whole day when a time falls into a 30-minute gap (Lord Howe)', () => {
    // 2026-10-04 02:00 +10:30 -> 02:30 +11:00. 02:15 should fire at 02:45 (15:45Z on the 3rd).
    expect(rawNext('15 2 * * *', 'Australia/Lord_Howe', '2026-10-03T00:00:00Z', 1)).toEqual(['2026-10-04T15:15:00Z']);
  });

  it('skips real, existing times after a 30-minute gap', () => {
    // 02:30 and 02:45 +11:00 exist (15:30Z, 15:45Z) but are not returned.
    expect(rawNext('*/15 * * * *', 'Australia/Lord_Howe', '2026-10-03T15:00:00Z', 2)).toEqual([
      '2026-10-03T15:15:00Z',
      '2026-10-03T16:00:00Z',
    ]);
  });

  it('drops the second occurrences of a 30-minute fall-back for every-hour expressions', () => {
    // 2026-04-05 02:00 +11:00 -> 01:30 +10:30: 01:30 and 01:45 +10:30 (15:00Z, 15:15Z) missing.
    expect(rawNext('*/15 * * * *', 'Australia/Lord_Howe', '2026-04-04T14:00:00Z', 5)).toEqual([
      '2026-04-04T14:15:00Z',
      '2026-04-04T14:30:00Z',
      '2026-04-04T14:45:00Z',
      '2026-04-04T15:30:00Z',
      '2026-04-04T15:45:00Z',
    ]);
  });

  it('misses a shifted gap time when asked from between the gap and the shifted instant', () => {
    // From 03:10 CEST, 02:30 (shifted to 03:30 CEST = 01:30Z) is still ahead, but it answers
    // with the next day.
    expect(rawNext('30 2 * * *', 'Europe/Berlin', '2026-03-29T01:10:00Z', 1)).toEqual(['2026-03-30T00:30:00Z']);
  });
});

describe('cron-parser: parsing quirks we rely on or guard against', () => {
  it('rejects a day of month that never occurs in the month itself', () => {
    expect(() => CronExpressionParser.parse('0 0 30 2 *')).toThrow('Invalid explicit day of month definition');
  });

  it('reports 7 fields, but defaults an empty expression to every minute', () => {
    expect(() => CronExpressionParser.parse('* * * * * * *')).toThrow('too many fields');
    expect(CronExpressionParser.parse('').stringify(true)).toBe('0 * * * * *');
  });

  it('treats only a literal * or ? as a wildcard day field (*/1 is "restricted")', () => {
    const expr = CronExpressionParser.parse('0 0 */1 * 1');
    expect(expr.fields.dayOfMonth.isWildcard).toBe(false);
    expect(CronExpressionParser.parse('0 0 ? * 1').fields.dayOfMonth.isWildcard).toBe(true);
  });

  it('gives H a random value unless seeded, so it cannot be used across scheduler nodes', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 20; i++) seen.add(CronExpressionParser.parse('H * * * *').stringify());
    expect(seen.size).toBeGreaterThan(1);
  });

  it('rejects W and duplicate values', () => {
    expect(() => CronExpressionParser.parse('0 0 15W * *')).toThrow();
    expect(() => CronExpressionParser.parse('1,1 * * * *')).toThrow('duplicate');
  });
});
