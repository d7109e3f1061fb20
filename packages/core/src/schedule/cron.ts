// Cron fire times as real instants: the daylight-saving contract lives here.
//
//   Cron fields are wall-clock times in the job's timezone. A wall-clock time that does not
//   exist (spring forward) fires once, shifted forward by the length of the gap (02:30 in a
//   02:00→03:00 gap fires at 03:30), and never twice if that lands on another fire time. A
//   wall-clock time that occurs twice (fall back) fires once, at its first occurrence,
//   unless the expression's hour field is `*`: then every real instant that matches fires.
//
// Time is cut into segments of constant UTC offset (zone.ts). Inside a segment, instants and
// wall times map one to one, so the wall matcher finds candidates directly. The two DST
// exceptions are local to the start of a segment: the second occurrence of repeated wall
// times (skipped unless every hour matches) and the instants that gap times are shifted to.
// All arithmetic is in whole seconds; fire times always fall on one.

import type { CompiledCron } from './cron-expression';
import { nextWall, prevWall, wallMatches } from './cron-wall';
import type { Segment, Transition, Zone } from './zone';

/** Length of the repeated stretch if `tr` turns clocks back, else 0. */
function overlapOf(tr: Transition | null): number {
  return tr !== null && tr.before > tr.after ? tr.before - tr.after : 0;
}

/** Length of the skipped stretch if `tr` moves clocks forward, else 0. */
function gapOf(tr: Transition | null): number {
  return tr !== null && tr.after > tr.before ? tr.after - tr.before : 0;
}

/** Instant t (in the segment) is a second occurrence of a repeated wall time we must skip. */
function isSkippedRepeat(c: CompiledCron, seg: Segment, t: number): boolean {
  const tr = seg.transition;
  return !c.everyHour && tr !== null && t < tr.at + overlapOf(tr);
}

/**
 * Remembers one nextWall answer: a later query whose bound falls between the old bound and
 * that answer has the same answer. Saves rescanning when a rare expression's next match lies
 * many segments (years) ahead.
 */
class WallMemo {
  private lb = Number.NaN;
  private result: number | null = null;

  constructor(
    private readonly c: CompiledCron,
    private readonly forward: boolean,
  ) {}

  find(bound: number): number | null {
    const r = this.result;
    const known = this.forward
      ? bound >= this.lb && (r === null || bound < r)
      : bound <= this.lb && (r === null || bound > r);
    if (known) return r;
    this.lb = bound;
    this.result = this.forward ? nextWall(this.c, bound) : prevWall(this.c, bound);
    return this.result;
  }
}

/** Smallest fire time (seconds) strictly after `after` (seconds), or null if none by 9999. */
export function nextCronFire(c: CompiledCron, zone: Zone, after: number): number | null {
  const memo = new WallMemo(c, true);
  let best = Number.POSITIVE_INFINITY;
  let cur = after;
  for (;;) {
    const seg = zone.segmentAt(cur + 1);
    const tr = seg.transition;
    // Ordinary matches: wall = instant + offset, searched within this segment only.
    const limit = seg.end - 1 + seg.offset;
    let w = memo.find(cur + seg.offset);
    if (w !== null && w <= limit) {
      let t = w - seg.offset;
      if (isSkippedRepeat(c, seg, t) && tr !== null) {
        // Jump past every repeated wall time in one step rather than one match at a time.
        w = memo.find(tr.at + tr.before - 1);
        t = w !== null && w <= limit ? w - seg.offset : Number.POSITIVE_INFINITY;
      }
      if (t < best) best = t;
    }
    // Gap times, each shifted by the gap: wall w in [at+before, at+after) fires at w-before.
    const gap = gapOf(tr);
    if (tr !== null && gap > 0 && cur < tr.at + gap) {
      const wg = nextWall(c, Math.max(tr.at + tr.before - 1, cur + tr.before));
      if (wg !== null && wg < tr.at + tr.after && wg - tr.before < best) best = wg - tr.before;
    }
    // Later segments only hold instants >= seg.end (their gap shifts start at their own start).
    if (best < seg.end) return best;
    if (w === null || !Number.isFinite(seg.end)) return Number.isFinite(best) ? best : null;
    cur = seg.end - 1;
  }
}

/** Largest fire time t with lo < t < hi (seconds), or null. */
export function prevCronFire(c: CompiledCron, zone: Zone, hi: number, lo: number): number | null {
  const memo = new WallMemo(c, false);
  let best = Number.NEGATIVE_INFINITY;
  let cur = hi;
  while (cur > lo + 1) {
    const seg = zone.segmentAt(cur - 1);
    const tr = seg.transition;
    const floor = Math.max(seg.start, lo + 1) + seg.offset;
    const w = memo.find(cur + seg.offset);
    if (w !== null && w >= floor) {
      const t = w - seg.offset;
      // A skipped repeat: every earlier wall in this segment is a repeat as well (they all
      // map to [at, t)), and the first occurrences live in the previous segment.
      if (!isSkippedRepeat(c, seg, t) && t > best) best = t;
    }
    const gap = gapOf(tr);
    if (tr !== null && gap > 0 && cur > tr.at) {
      const wg = prevWall(c, Math.min(tr.at + tr.after, cur + tr.before));
      if (wg !== null && wg >= tr.at + tr.before && wg - tr.before > lo && wg - tr.before > best) {
        best = wg - tr.before;
      }
    }
    // Earlier segments only hold instants < seg.start (gap shifts of this segment's own
    // transition were handled above, even when it began in an earlier segment).
    if (best >= seg.start) return best;
    if (w === null || !Number.isFinite(seg.start)) break;
    cur = seg.start;
  }
  return best > lo ? best : null;
}

export type DstSituation =
  | { kind: 'shifted'; transition: Transition; wall: number; coincides: boolean }
  | { kind: 'repeated'; transition: Transition; wall: number; occurrence: 'first' | 'second' }
  | { kind: 'transition-day'; transition: Transition };

/**
 * How the fire time `t` (seconds) relates to a nearby offset change, for user-facing notes.
 * `wall` is the wall time the expression asked for.
 */
export function dstSituation(c: CompiledCron, zone: Zone, t: number): DstSituation | null {
  const seg = zone.segmentAt(t);
  const tr = seg.transition;
  const wall = t + seg.offset;
  if (tr !== null && t < tr.at + gapOf(tr)) {
    const asked = t + tr.before;
    if (wallMatches(c, asked)) {
      return { kind: 'shifted', transition: tr, wall: asked, coincides: wallMatches(c, wall) };
    }
  }
  if (tr !== null && t < tr.at + overlapOf(tr)) {
    return { kind: 'repeated', transition: tr, wall, occurrence: 'second' };
  }
  // The first occurrence of a repeated time sits just before the next transition.
  const next = seg.end;
  if (Number.isFinite(next)) {
    const after = zone.segmentAt(next);
    if (after.transition !== null && after.transition.at === next && t >= next - overlapOf(after.transition)) {
      return { kind: 'repeated', transition: after.transition, wall, occurrence: 'first' };
    }
  }
  // Otherwise: does the local calendar day of t contain a change?
  const dayStart = Math.floor(wall / 86_400) * 86_400;
  const utcDayStart = dayStart - seg.offset;
  for (const candidate of zone.transitionsBetween(utcDayStart - 2 * 86_400, utcDayStart + 3 * 86_400)) {
    const beforeDay = Math.floor((candidate.at + candidate.before) / 86_400) * 86_400;
    const afterDay = Math.floor((candidate.at + candidate.after) / 86_400) * 86_400;
    if (beforeDay === dayStart || afterDay === dayStart) {
      return { kind: 'transition-day', transition: candidate };
    }
  }
  return null;
}
