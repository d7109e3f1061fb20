// Time-zone names, UTC offsets and offset transitions, derived from the runtime's own tz
// data through Intl (no luxon, no bundled database). Offsets are found by sampling once per
// zone and UTC year and bisecting to the exact second of every change; after that a lookup
// is a couple of comparisons, which is what lets the cron search run in microseconds.

import { daysFromCivil, MAX_YEAR, MIN_YEAR, SECONDS_PER_DAY, utcYearOf } from './civil';

/** A change of UTC offset: from `at` (seconds since the epoch) on, `after` applies. */
export interface Transition {
  at: number;
  /** Offset in seconds (local = UTC + offset) just before `at`. */
  before: number;
  /** Offset in seconds from `at` on. */
  after: number;
}

/** A stretch of time with one UTC offset; boundaries are transitions or UTC year ends. */
export interface Segment {
  start: number;
  end: number;
  offset: number;
  /** The latest real transition at or before `start` (possibly days earlier), or null. */
  transition: Transition | null;
}

interface ZoneYear {
  start: number;
  end: number;
  /** Offset at start - LOOKBACK, i.e. before the first entry of `transitions`. */
  initial: number;
  /** Sorted; includes changes in the LOOKBACK window before `start`. */
  transitions: Transition[];
}

// Sampling daily misses only a change that is undone within the same day, which no zone
// in current tz data does. The lookback lets a segment near New Year still see the gap or
// overlap of a transition made just before it (the longest ever, Samoa 2011, was a day).
const SAMPLE_STEP = SECONDS_PER_DAY;
const LOOKBACK = 3 * SECONDS_PER_DAY;
const MAX_CACHED_YEARS = 128;

const WALL_RE = /^(\d+)\/(\d+)\/(\d+),? (\d+):(\d+):(\d+)$/;

export class Zone {
  readonly name: string;
  private readonly formatter: Intl.DateTimeFormat;
  private readonly years = new Map<number, ZoneYear>();
  private last: ZoneYear | null = null;

  constructor(name: string) {
    this.name = name;
    this.formatter = new Intl.DateTimeFormat('en-US', {
      timeZone: name,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
  }

  /** The segment containing the instant `t` (seconds). */
  segmentAt(t: number): Segment {
    let zy = this.last;
    if (zy === null || t < zy.start || t >= zy.end) {
      zy = this.year(utcYearOf(t));
      this.last = zy;
    }
    let transition: Transition | null = null;
    let end = zy.end;
    for (const tr of zy.transitions) {
      if (tr.at <= t) {
        transition = tr;
      } else {
        end = tr.at;
        break;
      }
    }
    const start = transition !== null && transition.at > zy.start ? transition.at : zy.start;
    const offset = transition !== null ? transition.after : zy.initial;
    return { start, end, offset, transition };
  }

  offsetAt(t: number): number {
    return this.segmentAt(t).offset;
  }

  /** Real transitions with from <= at < to, ascending. */
  transitionsBetween(from: number, to: number): Transition[] {
    const out: Transition[] = [];
    for (let y = utcYearOf(from); y <= utcYearOf(to); y++) {
      for (const tr of this.year(y).transitions) {
        const last = out[out.length - 1];
        if (tr.at >= from && tr.at < to && (last === undefined || tr.at > last.at)) out.push(tr);
      }
    }
    return out;
  }

  /** Offset straight from Intl; only used while building a year, so speed matters little. */
  intlOffsetAt(t: number): number {
    const text = this.formatter.format(t * 1000);
    const m = WALL_RE.exec(text);
    let local: number;
    if (m !== null) {
      local =
        daysFromCivil(Number(m[3]), Number(m[1]), Number(m[2])) * SECONDS_PER_DAY +
        Number(m[4]) * 3600 +
        Number(m[5]) * 60 +
        Number(m[6]);
    } else {
      // A locale-data update could change the layout; parts are slower but unambiguous.
      const parts: Record<string, number> = {};
      for (const p of this.formatter.formatToParts(t * 1000)) parts[p.type] = Number(p.value);
      local =
        daysFromCivil(parts.year ?? 1970, parts.month ?? 1, parts.day ?? 1) * SECONDS_PER_DAY +
        (parts.hour ?? 0) * 3600 +
        (parts.minute ?? 0) * 60 +
        (parts.second ?? 0);
    }
    return local - t;
  }

  private year(year: number): ZoneYear {
    const y = Math.min(Math.max(year, MIN_YEAR), MAX_YEAR + 1);
    let zy = this.years.get(y);
    if (zy === undefined) {
      zy = this.buildYear(y);
      if (this.years.size >= MAX_CACHED_YEARS) this.years.clear();
      this.years.set(y, zy);
    }
    // Instants outside the supported years borrow the nearest year's rules but must
    // still land inside the returned span, or segmentAt would loop on them.
    if (y !== year) {
      return {
        ...zy,
        start: year < y ? Number.NEGATIVE_INFINITY : zy.start,
        end: year > y ? Number.POSITIVE_INFINITY : zy.end,
      };
    }
    return zy;
  }

  private buildYear(year: number): ZoneYear {
    const start = daysFromCivil(year, 1, 1) * SECONDS_PER_DAY;
    const end = daysFromCivil(year + 1, 1, 1) * SECONDS_PER_DAY;
    const from = start - LOOKBACK;
    const initial = this.intlOffsetAt(from);
    const transitions: Transition[] = [];
    let lo = from;
    let loOffset = initial;
    while (lo < end - 1) {
      const hi = Math.min(lo + SAMPLE_STEP, end - 1);
      const hiOffset = this.intlOffsetAt(hi);
      // Several changes inside one step are found one after another: after each, the
      // remaining interval is re-examined from the change on.
      while (hiOffset !== loOffset) {
        const at = this.bisect(lo, hi, loOffset);
        const after = this.intlOffsetAt(at);
        transitions.push({ at, before: loOffset, after });
        lo = at;
        loOffset = after;
      }
      lo = hi;
    }
    return { start, end, initial, transitions };
  }

  /** Smallest t in (lo, hi] whose offset differs from `offset` (offset(lo) === offset). */
  private bisect(lo: number, hi: number, offset: number): number {
    let a = lo;
    let b = hi;
    while (b - a > 1) {
      const mid = Math.floor((a + b) / 2);
      if (this.intlOffsetAt(mid) === offset) a = mid;
      else b = mid;
    }
    return b;
  }
}

const zones = new Map<string, Zone>();
let knownZones: Map<string, string> | null = null;

function canonicalNames(): Map<string, string> {
  if (knownZones === null) {
    knownZones = new Map();
    for (const name of Intl.supportedValuesOf('timeZone')) knownZones.set(name.toLowerCase(), name);
    knownZones.set('utc', 'UTC');
  }
  return knownZones;
}

/**
 * Null when `timezone` is an IANA zone name the runtime knows ("UTC" included), else a
 * message for a human. Offsets ("+01:00") are refused although Intl accepts them: they
 * have no DST rules, so a user who types one almost certainly meant a named zone.
 */
export function validateTimezone(timezone: string): string | null {
  if (typeof timezone !== 'string') return 'time zone must be a string';
  // Asking Intl costs about half a millisecond; a batch of 1,000 jobs names a handful of zones.
  const cached = checkedZones.get(timezone);
  if (cached !== undefined) return cached;
  const problem = checkTimezone(timezone);
  if (checkedZones.size >= CHECKED_ZONES_MAX) checkedZones.clear();
  checkedZones.set(timezone, problem);
  return problem;
}

const CHECKED_ZONES_MAX = 2_048;
const checkedZones = new Map<string, string | null>();

function checkTimezone(timezone: string): string | null {
  if (timezone.trim() === '') return 'time zone is empty';
  if (timezone !== timezone.trim()) return `time zone '${timezone}' has leading or trailing spaces`;
  if (/^[+\-\u2212]?\d/.test(timezone) || /^(UTC|GMT)[+-]/i.test(timezone)) {
    return `time zone must be an IANA name such as 'Europe/Berlin', not a UTC offset ('${timezone}')`;
  }
  let resolved: string;
  try {
    resolved = new Intl.DateTimeFormat('en-US', { timeZone: timezone }).resolvedOptions().timeZone;
  } catch {
    const suggestion = canonicalNames().get(timezone.toLowerCase());
    return suggestion !== undefined
      ? `unknown time zone '${timezone}' (did you mean '${suggestion}'?)`
      : `unknown time zone '${timezone}'`;
  }
  // Intl matches names case-insensitively; stored names should be the real ones so that
  // equality checks and other systems (databases, other languages) agree with us.
  const known = canonicalNames();
  const exact = known.get(timezone.toLowerCase());
  if (exact !== undefined && exact !== timezone) {
    return `unknown time zone '${timezone}' (time zone names are case-sensitive; did you mean '${exact}'?)`;
  }
  if (exact === undefined && resolved !== timezone && resolved.toLowerCase() === timezone.toLowerCase()) {
    return `unknown time zone '${timezone}' (time zone names are case-sensitive; did you mean '${resolved}'?)`;
  }
  return null;
}

/** The cached Zone for a valid name; throws RangeError with the validation message otherwise. */
export function getZone(timezone: string): Zone {
  let zone = zones.get(timezone);
  if (zone === undefined) {
    const problem = validateTimezone(timezone);
    if (problem !== null) throw new RangeError(problem);
    zone = new Zone(timezone);
    zones.set(timezone, zone);
  }
  return zone;
}
