// Property-style checks of the DST contract against an independent reference model. The
// model shares no code with schedule/: wall times come from Intl, matching from cron-parser's
// includesDate in UTC, and the contract is applied literally, wall time by wall time:
//   no instant has this wall time  -> fire at wall - (offset before the gap)
//   one instant                    -> fire there
//   two instants                   -> the first, or both when the hour field is every hour
import { CronExpressionParser } from 'cron-parser';
import { describe, expect, it } from 'vitest';
import { type ScheduleSpec, fireTimesBetween, latestFireTimeAtOrBefore, nextFireTimes } from './index';

const formatters = new Map<string, Intl.DateTimeFormat>();

/** Wall clock of instant t (seconds) in tz, as local seconds. */
function intlLocal(tz: string, t: number): number {
  let f = formatters.get(tz);
  if (f === undefined) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: tz,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(tz, f);
  }
  const parts = f.formatToParts(t * 1000);
  const v = (type: string) => Number(parts.find((p) => p.type === type)?.value);
  return Date.UTC(v('year'), v('month') - 1, v('day'), v('hour'), v('minute'), v('second')) / 1000;
}

const intlOffset = (tz: string, t: number) => intlLocal(tz, t) - t;

function matcher(expression: string) {
  const fields = expression.trim().split(/\s+/);
  const cp = CronExpressionParser.parse(fields.length === 5 ? `0 ${expression}` : expression, {
    tz: 'UTC',
    currentDate: 0,
  });
  return {
    matches: (wall: number) => cp.includesDate(new Date(wall * 1000)),
    everyHour: cp.fields.hour.values.length === 24,
  };
}

/** Reference fire times in (from, to], walking wall times `step` seconds apart. */
function referenceFireTimes(expression: string, tz: string, from: number, to: number, step: number): number[] {
  const m = matcher(expression);
  const offsets = new Set<number>();
  for (let t = from - 86_400; t <= to + 86_400; t += 900) offsets.add(intlOffset(tz, t));
  const all = [...offsets];
  const out = new Set<number>();
  const lo = from + Math.min(...all) - 3600;
  const hi = to + Math.max(...all) + 3600;
  for (let w = Math.ceil(lo / step) * step; w <= hi; w += step) {
    if (!m.matches(w)) continue;
    const exact = [...new Set(all.map((o) => w - o).filter((t) => intlLocal(tz, t) === w))].sort((a, b) => a - b);
    let fires: number[];
    if (exact.length === 0) {
      const before = all.find((o) => intlOffset(tz, w - o) > o);
      fires = before === undefined ? [] : [w - before];
    } else {
      fires = m.everyHour ? exact : [exact[0] as number];
    }
    for (const t of fires) if (t > from && t <= to) out.add(t);
  }
  return [...out].sort((a, b) => a - b);
}

/** latestFireTimeAtOrBefore at every fire time, just before it and at the end, vs `expected`. */
function checkBackwards(expression: string, tz: string, from: number, to: number, expected: number[]): string[] {
  const spec: ScheduleSpec = { type: 'cron', expression, timezone: tz };
  const probes = [to, ...expected.flatMap((t) => [t, t - 1])];
  const problems: string[] = [];
  for (const at of probes) {
    const want = expected.filter((t) => t <= at).pop() ?? null;
    const got = latestFireTimeAtOrBefore(spec, new Date(from * 1000), new Date(at * 1000));
    if ((got === null ? null : got.getTime() / 1000) !== want)
      problems.push(`latest at ${at}: ${got?.toISOString()} vs ${want}`);
  }
  return problems;
}

function ours(expression: string, tz: string, from: number, to: number): number[] {
  const spec: ScheduleSpec = { type: 'cron', expression, timezone: tz };
  return fireTimesBetween(spec, new Date(from * 1000), new Date(to * 1000), 100_000).map((d) => d.getTime() / 1000);
}

/** Offset changes in 2026, found by scanning Intl hourly and refining to the minute. */
function transitions2026(tz: string): number[] {
  const out: number[] = [];
  let prev = intlOffset(tz, Date.UTC(2026, 0, 1) / 1000);
  for (let t = Date.UTC(2026, 0, 1) / 1000 + 3600; t <= Date.UTC(2027, 0, 1) / 1000; t += 3600) {
    const off = intlOffset(tz, t);
    if (off !== prev) {
      let m = t - 3600;
      while (intlOffset(tz, m) === prev) m += 60;
      out.push(m);
      prev = off;
    }
  }
  return out;
}

const ZONES = [
  'Europe/Berlin',
  'America/New_York',
  'Australia/Lord_Howe',
  'America/Santiago',
  'Africa/Casablanca',
  'Pacific/Chatham',
  'America/St_Johns',
];

// [expression, wall-time step that hits every second value it can match]
const EXPRESSIONS: [string, number][] = [
  ['30 2 * * *', 60],
  ['*/15 2 * * *', 60],
  ['30 2,3 * * *', 60],
  ['30 * * * *', 60],
  ['*/30 * * * *', 60],
  ['0 * * * *', 60],
  ['30 1 * * *', 60],
  ['0 0 * * *', 60],
  ['0 23 * * *', 60],
  ['15,45 0-3 * * *', 60],
  ['*/10 * * * *', 60],
  ['0 1-3 * * *', 60],
  ['45 1 * * *', 60],
  ['*/7 1,2 * * *', 60],
  ['59 23 * * *', 60],
  ['0 */2 * * *', 60],
  ['*/20 0-23 * * *', 60],
  ['5 0 * * 0', 60],
  ['0 0 L * *', 60],
  ['1-59/13 0-4 * * *', 60],
  ['*/30 30 2 * * *', 30],
  ['0 */20 * * * *', 60],
  ['15 0 0 * * *', 15],
];

describe('reference model around every 2026 transition', () => {
  it.each(ZONES)('%s: fire times within 8 h of each change match the model, both directions', (tz) => {
    const changes = transitions2026(tz);
    expect(changes.length).toBeGreaterThan(0);
    const mismatches: string[] = [];
    for (const at of changes) {
      for (const [expression, step] of EXPRESSIONS) {
        const from = at - 8 * 3600;
        const to = at + 8 * 3600;
        const expected = referenceFireTimes(expression, tz, from, to, step);
        const actual = ours(expression, tz, from, to);
        if (JSON.stringify(actual) !== JSON.stringify(expected)) {
          mismatches.push(`${expression} @ ${new Date(at * 1000).toISOString()}: ${actual} vs ${expected}`);
        }
        mismatches.push(...checkBackwards(expression, tz, from, to, expected).map((p) => `${expression}: ${p}`));
      }
    }
    expect(mismatches).toEqual([]);
  });
});

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

describe('random expressions, zones and start times across 2026', () => {
  const zones = [...ZONES, 'Asia/Kolkata', 'UTC'];
  it.each(zones)('%s: increasing, unique, matching or gap-shifted, and complete', (tz) => {
    const random = rng(tz.length * 104_729 + tz.charCodeAt(1));
    const changes = transitions2026(tz);
    const problems: string[] = [];
    for (let trial = 0; trial < 30; trial++) {
      const [expression, step] = EXPRESSIONS[Math.floor(random() * EXPRESSIONS.length)] as [string, number];
      const m = matcher(expression);
      // Half the starts land within a day of a change, where the interesting cases live.
      const near = changes.length > 0 && random() < 0.5;
      const anchor = near
        ? (changes[Math.floor(random() * changes.length)] as number) - 86_400
        : Date.UTC(2026, 0, 1) / 1000;
      const start = Math.floor(anchor + random() * (near ? 2 * 86_400 : 365 * 86_400));
      const spec: ScheduleSpec = { type: 'cron', expression, timezone: tz };
      const got = nextFireTimes(spec, new Date(start * 1000), 20).map((d) => d.getTime() / 1000);
      const label = `${expression} from ${new Date(start * 1000).toISOString()}`;
      if (got.length !== 20) problems.push(`${label}: only ${got.length}`);
      got.forEach((t, i) => {
        if (t <= (i === 0 ? start : (got[i - 1] as number))) problems.push(`${label}: not increasing at ${i}`);
        const wall = intlLocal(tz, t);
        const gap = intlOffset(tz, t) - intlOffset(tz, t - 4 * 3600);
        const shifted = gap > 0 && intlOffset(tz, t - gap) !== intlOffset(tz, t) && m.matches(wall - gap);
        if (!m.matches(wall) && !shifted) problems.push(`${label}: ${t} matches nothing`);
      });
      // Completeness over the first two days of the result, against the model.
      const windowEnd = Math.min(got[got.length - 1] ?? start, start + 2 * 86_400);
      const expected = referenceFireTimes(expression, tz, start, windowEnd, step);
      const actual = got.filter((t) => t <= windowEnd);
      if (JSON.stringify(actual) !== JSON.stringify(expected)) problems.push(`${label}: ${actual} vs ${expected}`);
    }
    expect(problems).toEqual([]);
  });
});
