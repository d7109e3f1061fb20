// Decides, for one due schedule entry, which occurrences become runs, which are recorded as
// skipped, and where the entry moves next. Pure: the scheduler supplies the database's clock.
//
// An occurrence is a misfire when it is older than `misfireGraceMs` at scan time (nothing
// could run it: node or cluster down). Otherwise it is simply due (or due within the
// look-ahead window) and is materialized as a pending run — with the ones after it that are
// already past too, up to `overduePerScan`: after a short outage (the database restarting) a
// frequent schedule's backlog drains in a few scans instead of one occurrence per scan.
import {
  countFireTimesBetween,
  fireTimesBetween,
  latestFireTimeAtOrBefore,
  type MisfirePolicy,
  nextFireTime,
  type ScheduleSpec,
} from '@belfry/core';

export interface PlanOptions {
  misfireGraceMs: number;
  /** catch_up: at most this many (>= 1) missed occurrences run; older ones are recorded skipped */
  catchUpMax: number;
  /** catch_up: at most this many missed occurrences are materialized per job per scan */
  catchUpPerScan: number;
  /** at most this many skipped occurrences are recorded per job per scan */
  skipRecordMax: number;
  /** within the grace period: at most this many past occurrences are materialized per job per scan */
  overduePerScan: number;
}

export const DEFAULT_PLAN_OPTIONS: PlanOptions = {
  misfireGraceMs: 60_000,
  catchUpMax: 100,
  catchUpPerScan: 10,
  skipRecordMax: 1_000,
  overduePerScan: 10,
};

export interface PlannedOccurrence {
  scheduledTime: Date;
  status: 'pending' | 'skipped';
  skipReason: 'misfire' | null;
}

export interface Plan {
  occurrences: PlannedOccurrence[];
  /** where the entry moves; null = schedule exhausted */
  next: Date | null;
  /** skipped occurrences that were not recorded individually (beyond skipRecordMax) */
  unrecordedSkips: number;
}

const skipped = (t: Date): PlannedOccurrence => ({ scheduledTime: t, status: 'skipped', skipReason: 'misfire' });
const pending = (t: Date): PlannedOccurrence => ({ scheduledTime: t, status: 'pending', skipReason: null });

/** Occurrences in [first, last], first being a fire time, capped at `limit`. */
function occurrencesFrom(spec: ScheduleSpec, first: Date, last: Date, limit: number): Date[] {
  if (limit <= 0 || first > last) return [];
  return [first, ...fireTimesBetween(spec, first, last, limit - 1)];
}

function countFrom(spec: ScheduleSpec, first: Date, last: Date): number {
  if (first > last) return 0;
  return 1 + countFireTimesBetween(spec, first, last, 10_000_000);
}

export function planEntry(
  spec: ScheduleSpec,
  due: Date,
  policy: MisfirePolicy,
  dbNow: Date,
  options: PlanOptions = DEFAULT_PLAN_OPTIONS,
): Plan {
  if (due.getTime() >= dbNow.getTime() - options.misfireGraceMs) {
    // Due, not missed. An entry still ahead (the look-ahead window) yields its one occurrence, as
    // in steady operation; one already past yields the occurrences up to now with it (a backlog
    // of less than the grace period: every scan it waited for would have made one of them).
    const times =
      due.getTime() < dbNow.getTime() ? occurrencesFrom(spec, due, dbNow, Math.max(1, options.overduePerScan)) : [due];
    const last = times.at(-1) ?? due;
    return { occurrences: times.map(pending), next: nextFireTime(spec, last), unrecordedSkips: 0 };
  }

  // Misfire: `due` and possibly more occurrences up to now were missed.
  const latest = latestFireTimeAtOrBefore(spec, new Date(due.getTime() - 1), dbNow) ?? due;
  const missed = countFrom(spec, due, latest);

  if (policy === 'skip') {
    const recorded = occurrencesFrom(spec, due, latest, options.skipRecordMax).map(skipped);
    return { occurrences: recorded, next: nextFireTime(spec, latest), unrecordedSkips: missed - recorded.length };
  }

  if (policy === 'run_once') {
    const before = new Date(latest.getTime() - 1);
    const recorded = occurrencesFrom(spec, due, before, options.skipRecordMax).map(skipped);
    return {
      occurrences: [...recorded, pending(latest)],
      next: nextFireTime(spec, latest),
      unrecordedSkips: missed - 1 - recorded.length,
    };
  }

  // catch_up: run the newest `catchUpMax` missed occurrences, a few per scan, oldest first;
  // anything older than that is recorded as skipped so an outage cannot become a storm.
  // The oldest one to run is found by stepping back from `latest`, so the cost is bounded by
  // catchUpMax whatever the length of the outage.
  const occurrences: PlannedOccurrence[] = [];
  let unrecordedSkips = 0;
  let start = due;
  if (missed > options.catchUpMax) {
    let first = latest;
    for (let i = 1; i < options.catchUpMax; i++) {
      const previous = latestFireTimeAtOrBefore(spec, due, new Date(first.getTime() - 1));
      if (!previous) break;
      first = previous;
    }
    const dropped = occurrencesFrom(spec, due, new Date(first.getTime() - 1), options.skipRecordMax);
    occurrences.push(...dropped.map(skipped));
    unrecordedSkips = missed - options.catchUpMax - dropped.length;
    start = first;
  }
  const runs = occurrencesFrom(spec, start, latest, options.catchUpPerScan);
  occurrences.push(...runs.map(pending));
  const last = runs.at(-1) ?? latest;
  return { occurrences, next: nextFireTime(spec, last), unrecordedSkips };
}
