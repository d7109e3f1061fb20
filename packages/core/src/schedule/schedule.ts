// The public schedule API: one-off, cron and fixed-interval specs, their fire times, the
// ranges misfire handling needs, and the DST notes the UI shows. Intervals are plain
// arithmetic on absolute milliseconds; cron goes through cron.ts. All functions are pure.

import { formatLocalDate, formatLocalTime, formatOffset } from './civil';
import { type DstSituation, dstSituation, nextCronFire, prevCronFire } from './cron';
import { compileCron, requireCron } from './cron-expression';
import { getZone, validateTimezone } from './zone';

export type ScheduleSpec =
  | { type: 'once'; runAt: Date }
  | { type: 'cron'; expression: string; timezone: string }
  | { type: 'interval'; everySeconds: number; anchor: Date };

type CronSpec = Extract<ScheduleSpec, { type: 'cron' }>;
type IntervalSpec = Extract<ScheduleSpec, { type: 'interval' }>;

function isValidDate(d: unknown): d is Date {
  return d instanceof Date && Number.isFinite(d.getTime());
}

function ms(d: Date, name: string): number {
  if (!isValidDate(d)) throw new RangeError(`${name} must be a valid Date`);
  return d.getTime();
}

/** Null when the spec can be scheduled, else a message for a human. */
export function validateScheduleSpec(spec: ScheduleSpec): string | null {
  switch (spec?.type) {
    case 'once':
      return isValidDate(spec.runAt) ? null : 'runAt must be a valid date';
    case 'interval':
      if (!Number.isSafeInteger(spec.everySeconds) || spec.everySeconds < 1) {
        return `everySeconds must be a whole number of seconds >= 1, got ${spec.everySeconds}`;
      }
      return isValidDate(spec.anchor) ? null : 'anchor must be a valid date';
    case 'cron': {
      const problem = compileCron(spec.expression);
      return typeof problem === 'string' ? problem : validateTimezone(spec.timezone);
    }
    default:
      return `unknown schedule type '${(spec as { type?: unknown } | null)?.type}'`;
  }
}

function periodMs(spec: IntervalSpec): number {
  if (!Number.isSafeInteger(spec.everySeconds) || spec.everySeconds < 1) {
    throw new RangeError(`everySeconds must be a whole number of seconds >= 1, got ${spec.everySeconds}`);
  }
  return spec.everySeconds * 1000;
}

/** Smallest k >= 1 with anchor + k*period > afterMs. */
function firstIndexAfter(anchor: number, period: number, afterMs: number): number {
  return Math.max(1, Math.floor((afterMs - anchor) / period) + 1);
}

/** Largest k with anchor + k*period <= atMs (may be < 1: no occurrence yet). */
function lastIndexAtOrBefore(anchor: number, period: number, atMs: number): number {
  return Math.floor((atMs - anchor) / period);
}

function cronParts(spec: CronSpec) {
  return { c: requireCron(spec.expression), zone: getZone(spec.timezone) };
}

/** Cron fire times are whole seconds: t (s) > x (ms) exactly when t > floor(x / 1000). */
function sec(msValue: number): number {
  return Math.floor(msValue / 1000);
}

function checkCount(n: number, name: string): number {
  if (Number.isNaN(n) || n === Number.POSITIVE_INFINITY) throw new RangeError(`${name} must be a finite number`);
  return Math.max(0, Math.floor(n));
}

/**
 * The next `count` fire times strictly after `after`, ascending. A one-off spec yields its
 * runAt if it is still ahead; an interval yields anchor + k*everySeconds for k >= 1.
 */
export function nextFireTimes(spec: ScheduleSpec, after: Date, count: number): Date[] {
  const n = checkCount(count, 'count');
  const afterMs = ms(after, 'after');
  const out: Date[] = [];
  if (n === 0) return out;
  switch (spec.type) {
    case 'once':
      if (ms(spec.runAt, 'runAt') > afterMs) out.push(new Date(spec.runAt.getTime()));
      return out;
    case 'interval': {
      const period = periodMs(spec);
      const anchor = ms(spec.anchor, 'anchor');
      const k = firstIndexAfter(anchor, period, afterMs);
      for (let i = 0; i < n; i++) out.push(new Date(anchor + (k + i) * period));
      return out;
    }
    case 'cron': {
      const { c, zone } = cronParts(spec);
      let cur = sec(afterMs);
      for (let i = 0; i < n; i++) {
        const t = nextCronFire(c, zone, cur);
        if (t === null) break;
        out.push(new Date(t * 1000));
        cur = t;
      }
      return out;
    }
  }
}

/** The first fire time strictly after `after`, or null when there is none. */
export function nextFireTime(spec: ScheduleSpec, after: Date): Date | null {
  if (spec.type === 'cron') {
    const { c, zone } = cronParts(spec);
    const t = nextCronFire(c, zone, sec(ms(after, 'after')));
    return t === null ? null : new Date(t * 1000);
  }
  return nextFireTimes(spec, after, 1)[0] ?? null;
}

/**
 * Fire times in (from, to], ascending, at most `limit` (the earliest ones). Cost is
 * proportional to the result, never to the size of the range.
 */
export function fireTimesBetween(spec: ScheduleSpec, from: Date, to: Date, limit: number): Date[] {
  const n = checkCount(limit, 'limit');
  const fromMs = ms(from, 'from');
  const toMs = ms(to, 'to');
  const out: Date[] = [];
  if (n === 0 || toMs <= fromMs) return out;
  switch (spec.type) {
    case 'once': {
      const runAt = ms(spec.runAt, 'runAt');
      if (runAt > fromMs && runAt <= toMs) out.push(new Date(runAt));
      return out;
    }
    case 'interval': {
      const period = periodMs(spec);
      const anchor = ms(spec.anchor, 'anchor');
      const last = lastIndexAtOrBefore(anchor, period, toMs);
      for (let k = firstIndexAfter(anchor, period, fromMs); k <= last && out.length < n; k++) {
        out.push(new Date(anchor + k * period));
      }
      return out;
    }
    case 'cron': {
      const { c, zone } = cronParts(spec);
      const end = sec(toMs);
      let cur = sec(fromMs);
      while (out.length < n) {
        const t = nextCronFire(c, zone, cur);
        if (t === null || t > end) break;
        out.push(new Date(t * 1000));
        cur = t;
      }
      return out;
    }
  }
}

/**
 * How many fire times lie in (from, to], counting no further than `cap`. Constant time for
 * one-off and interval specs whatever the range; for cron it walks the occurrences, so pass
 * a cap when the range may be large.
 */
export function countFireTimesBetween(
  spec: ScheduleSpec,
  from: Date,
  to: Date,
  cap: number = Number.POSITIVE_INFINITY,
): number {
  const fromMs = ms(from, 'from');
  const toMs = ms(to, 'to');
  if (Number.isNaN(cap)) throw new RangeError('cap must be a number');
  if (toMs <= fromMs || cap <= 0) return 0;
  switch (spec.type) {
    case 'once': {
      const runAt = ms(spec.runAt, 'runAt');
      return runAt > fromMs && runAt <= toMs ? 1 : 0;
    }
    case 'interval': {
      const period = periodMs(spec);
      const anchor = ms(spec.anchor, 'anchor');
      const count = lastIndexAtOrBefore(anchor, period, toMs) - firstIndexAfter(anchor, period, fromMs) + 1;
      return Math.min(Math.max(0, count), cap);
    }
    case 'cron': {
      const { c, zone } = cronParts(spec);
      const end = sec(toMs);
      let cur = sec(fromMs);
      let count = 0;
      while (count < cap) {
        const t = nextCronFire(c, zone, cur);
        if (t === null || t > end) break;
        count++;
        cur = t;
      }
      return count;
    }
  }
}

/**
 * The latest fire time t with from < t <= at, or null: the occurrence a "run once" misfire
 * policy replays. Constant time for intervals; cron searches backwards from `at`.
 */
export function latestFireTimeAtOrBefore(spec: ScheduleSpec, from: Date, at: Date): Date | null {
  const fromMs = ms(from, 'from');
  const atMs = ms(at, 'at');
  if (atMs <= fromMs) return null;
  switch (spec.type) {
    case 'once': {
      const runAt = ms(spec.runAt, 'runAt');
      return runAt > fromMs && runAt <= atMs ? new Date(runAt) : null;
    }
    case 'interval': {
      const period = periodMs(spec);
      const anchor = ms(spec.anchor, 'anchor');
      const k = lastIndexAtOrBefore(anchor, period, atMs);
      const t = anchor + k * period;
      return k >= 1 && t > fromMs ? new Date(t) : null;
    }
    case 'cron': {
      const { c, zone } = cronParts(spec);
      const t = prevCronFire(c, zone, sec(atMs) + 1, sec(fromMs));
      return t === null ? null : new Date(t * 1000);
    }
  }
}

function describe(s: DstSituation, zoneName: string, everyHour: boolean, offset: number): string {
  const tr = s.transition;
  const from = formatLocalTime(tr.at + tr.before);
  const to = formatLocalTime(tr.at + tr.after);
  switch (s.kind) {
    case 'shifted': {
      const at = formatLocalTime(s.wall + tr.after - tr.before);
      const once = s.coincides ? `, the same moment as its regular ${at} run, so it runs once` : '';
      return `${formatLocalTime(s.wall)} does not exist on ${formatLocalDate(s.wall)} in ${zoneName} (clocks jump from ${from} to ${to}); this run happens at ${at} instead${once}`;
    }
    case 'repeated': {
      const head = `${formatLocalTime(s.wall)} occurs twice on ${formatLocalDate(s.wall)} in ${zoneName} (clocks go back from ${from} to ${to})`;
      if (!everyHour) return `${head}; this schedule runs only at the first occurrence (${formatOffset(offset)})`;
      return `${head}; the hour field matches every hour, so it runs at both; this is the ${s.occurrence} (${formatOffset(offset)})`;
    }
    case 'transition-day': {
      const direction = tr.after > tr.before ? 'go forward' : 'go back';
      const when = `${formatLocalDate(tr.at + tr.before)} ${from}`;
      return `clocks ${direction} in ${zoneName} at ${when} (to ${to}, ${formatOffset(tr.before)} → ${formatOffset(tr.after)}); this run is at ${formatOffset(offset)}`;
    }
  }
}

/**
 * A sentence for the UI when `fireTime` lands on or next to a clock change in the cron
 * spec's zone (shifted out of a gap, a repeated time, or on the day of a change); else null.
 * One-off and interval specs are absolute instants, so they never get a note.
 */
export function dstNoteFor(spec: ScheduleSpec, fireTime: Date): string | null {
  if (spec.type !== 'cron') return null;
  const { c, zone } = cronParts(spec);
  const t = sec(ms(fireTime, 'fireTime'));
  const situation = dstSituation(c, zone, t);
  return situation === null ? null : describe(situation, zone.name, c.everyHour, zone.offsetAt(t));
}
