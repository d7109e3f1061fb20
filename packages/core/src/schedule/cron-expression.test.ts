import { CronExpressionParser } from 'cron-parser';
import { describe, expect, it } from 'vitest';
import { compileCron } from './cron-expression';
import { nextWall, prevWall, wallMatches } from './cron-wall';
import { validateCronExpression } from './index';

describe('validateCronExpression', () => {
  it.each([
    '* * * * *',
    '0 9 * * 1-5',
    '*/15 2 * * *',
    '30 2,3 * * *',
    '0 30 2 * * *',
    '*/10 * * * * *',
    '0 0 L * *',
    '0 12 * * 5L',
    '0 3 * * MON#1',
    '0 0 1 JAN,jul *',
    '0 0 ? * SUN',
    '0 0 29 2 *',
    '5/15 * * * *',
    '@daily',
    '@hourly',
    '  0  0  *  *  *  ',
    '0 0 * * 7',
  ])('accepts %j', (expression) => {
    expect(validateCronExpression(expression)).toBeNull();
  });

  it.each([
    ['', 'cron expression is empty'],
    ['   ', 'cron expression is empty'],
    [
      '* * * *',
      'cron expression must have 5 or 6 fields (minute hour day-of-month month day-of-week, optionally preceded by seconds); got 4',
    ],
    [
      '* * * * * * *',
      'cron expression must have 5 or 6 fields (minute hour day-of-month month day-of-week, optionally preceded by seconds); got 7',
    ],
    [
      '0 0 0 1 1 * 2026',
      'cron expression must have 5 or 6 fields (minute hour day-of-month month day-of-week, optionally preceded by seconds); got 7',
    ],
    ['60 * * * *', "invalid minute field '60': constraint error, got value 60 expected range 0-59"],
    ['* 24 * * *', "invalid hour field '24': constraint error, got value 24 expected range 0-23"],
    ['* * 0 * *', "invalid day-of-month field '0': constraint error, got value 0 expected range 1-31"],
    ['* * 32 * *', "invalid day-of-month field '32': constraint error, got value 32 expected range 1-31"],
    ['* * * 13 *', "invalid month field '13': constraint error, got value 13 expected range 1-12"],
    ['* * * * 8', "invalid day-of-week field '8': constraint error, got value 8 expected range 0-7"],
    ['61 * * * * *', "invalid second field '61': constraint error, got value 61 expected range 0-59"],
    ['*/0 * * * *', "invalid minute field '*/0': constraint error, cannot repeat at every 0 time."],
    ['5-1 * * * *', "invalid minute field '5-1': invalid range: 5-1, min(5) > max(1)"],
    ['a b c d e', "invalid minute field 'a': invalid characters, got value: a"],
    ['* * * FOO *', 'invalid month field \'FOO\': validation error, cannot resolve alias "foo"'],
    ['1,1 * * * *', "invalid minute field '1,1': validation error, duplicate values found: 1"],
    ['0 0 15W * *', "invalid day-of-month field '15W': invalid characters, got value: 15W"],
    ['0 0 * * 1#6', "invalid day-of-week field '1#6': constraint error, invalid dayOfWeek occurrence number (#)"],
    ['0 0 * * L', "invalid day-of-week field 'L': validation error, unexpected standalone L"],
    ['H * * * *', "invalid minute field 'H': 'H' (hashed random values) is not supported"],
    ['0 H(0-5) * * THU', "invalid hour field 'H(0-5)': 'H' (hashed random values) is not supported"],
    ['0 0 * * H', "invalid day-of-week field 'H': 'H' (hashed random values) is not supported"],
    ['0 0 30 2 *', "cron expression never fires: day-of-month '30' does not occur in month '2'"],
    ['0 0 31 4,6,9,11 *', "cron expression never fires: day-of-month '31' does not occur in month '4,6,9,11'"],
    [
      '@reboot',
      "unknown cron macro '@reboot' (supported: @yearly, @annually, @monthly, @weekly, @daily, @hourly, @minutely, @secondly, @weekdays, @weekends)",
    ],
    [
      '@daily 0',
      "unknown cron macro '@daily 0' (supported: @yearly, @annually, @monthly, @weekly, @daily, @hourly, @minutely, @secondly, @weekdays, @weekends)",
    ],
  ])('rejects %j', (expression, message) => {
    expect(validateCronExpression(expression)).toBe(message);
  });

  it('rejects non-strings', () => {
    expect(validateCronExpression(undefined as unknown as string)).toBe('cron expression must be a string');
  });

  it('marks an expression whose hour field covers every hour', () => {
    const everyHour = (e: string) => {
      const c = compileCron(e);
      return typeof c === 'string' ? c : c.everyHour;
    };
    expect(['* * * * *', '0 ? * * *', '0 */1 * * *', '0 0-23 * * *', '@hourly'].map(everyHour)).toEqual([
      true,
      true,
      true,
      true,
      true,
    ]);
    expect(['0 */2 * * *', '0 1-23 * * *', '0 0 * * *', '@daily'].map(everyHour)).toEqual([false, false, false, false]);
  });
});

// Seeded so failures reproduce.
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const PARITY_EXPRESSIONS = [
  '* * * * *',
  '0 9 * * 1-5',
  '*/7 */5 * * *',
  '0 0 L * *',
  '0 12 * * 5L',
  '0 12 * * 1,5L',
  '0 3 * * 1#1',
  '30 6 * * 0#5',
  '0 0 13 * 5',
  '0 0 */2 * 1',
  '0 0 1-7 * 1',
  '0 0 29 2 *',
  '0 0 L 2 *',
  '15 10 1,15,L * *',
  '0 22 * 1-3,10-12 6-7',
  '5/15 0-6 * * *',
  '0 0 ? JAN,JUL SUN',
  '*/20 30 2 * * *',
  '10-20/5 * 0 1 * *',
  '0 0 0 * * 1-5',
  '59 59 23 31 12 *',
  '0 0 * 2 1#5',
];

describe('wall-clock matcher parity with cron-parser in UTC (which has no DST to get wrong)', () => {
  it.each(PARITY_EXPRESSIONS)('%s: next and previous match agree over random starts', (expression) => {
    const c = compileCron(expression);
    if (typeof c === 'string') throw new Error(c);
    const random = rng(expression.length * 7919 + expression.charCodeAt(0));
    const mismatches: string[] = [];
    for (let trial = 0; trial < 25; trial++) {
      const start = Math.floor(Date.UTC(2020, 0, 1) / 1000 + random() * 15 * 365 * 86_400);
      const it = CronExpressionParser.parse(expression, { currentDate: new Date(start * 1000), tz: 'UTC' });
      const theirs = it.take(8).map((d) => d.getTime() / 1000);
      const ours: number[] = [];
      let cur = start;
      for (let i = 0; i < 8; i++) {
        const w = nextWall(c, cur);
        if (w === null) break;
        ours.push(w);
        cur = w;
      }
      if (JSON.stringify(ours) !== JSON.stringify(theirs)) mismatches.push(`${start}: ${ours} vs ${theirs}`);
      // Backwards from the last match walks the same list in reverse.
      const back: number[] = [];
      let hi = (ours[ours.length - 1] ?? start) + 1;
      for (let i = 0; i < ours.length; i++) {
        const w = prevWall(c, hi);
        if (w === null) break;
        back.unshift(w);
        hi = w;
      }
      if (JSON.stringify(back) !== JSON.stringify(ours)) mismatches.push(`prev from ${start}: ${back}`);
      for (const w of ours) if (!wallMatches(c, w)) mismatches.push(`wallMatches(${w}) is false`);
    }
    expect(mismatches).toEqual([]);
  });
});
