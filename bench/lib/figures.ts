// The figures of a herd or a steady run, computed from the sink's records alone, so Belfry and
// the peers (bench/peers) are measured by exactly the same code. An occurrence is (job id,
// scheduled time); a duplicate is an occurrence delivered under two different run ids
// (`webhook-id`), which a receiver deduplicating on that header could not recognise; a retry
// of the same run (same id, higher attempt) is at-least-once delivery, not a duplicate, but
// shows in `deliveries` exceeding the occurrences.
import type { SinkRecord } from './sink';
import { summarize, trend, type Summary } from './stats';

export interface HerdFigures {
  deliveredAllMs: number | null;
  deliveriesPerSecond: number | null;
  lag: Summary;
  duplicates: number;
  missing: number;
  /** every request the sink received for the judged occurrences, retries included */
  deliveries: number;
  points: { t: number; lag: number }[];
  lags: number[];
  /** the first attempts (start lag is measured on these) */
  first: SinkRecord[];
}

/** One occurrence: a job's scheduled time (its runs, retries and duplicates share it). */
const occurrenceKey = (r: SinkRecord): string => `${r.jobId}@${r.scheduled}`;

function occurrences(records: SinkRecord[]) {
  const byOccurrence = new Map<string, Set<string>>();
  for (const r of records) {
    const key = occurrenceKey(r);
    const set = byOccurrence.get(key) ?? new Set();
    set.add(r.runId);
    byOccurrence.set(key, set);
  }
  return {
    count: byOccurrence.size,
    duplicates: [...byOccurrence.values()].filter((s) => s.size > 1).length,
  };
}

/** How long a steady run waits after its window at most for its last occurrences (see waitForWindow). */
export const STEADY_STRAGGLER_MS = 30_000;

/**
 * Waits until 3 s after a steady window [start, end) closed and then, up to
 * STEADY_STRAGGLER_MS after it, until every one of its `expected` occurrences has arrived: a run
 * that falls behind shows its late occurrences in the lag figures instead of as missing (they
 * used to be left out of both the lag distribution — its worst tail — and the delivered count).
 * Only what has not arrived by then counts as missing.
 */
export async function waitForWindow(
  records: SinkRecord[],
  o: { start: number; end: number; expected: number },
): Promise<void> {
  const seen = new Set<string>();
  let scanned = 0;
  for (;;) {
    for (; scanned < records.length; scanned++) {
      const r = records[scanned] as SinkRecord;
      if (r.scheduled >= o.start && r.scheduled < o.end) seen.add(occurrenceKey(r));
    }
    const now = Date.now();
    if (now >= o.end + 3_000 && (seen.size >= o.expected || now >= o.end + STEADY_STRAGGLER_MS)) return;
    await new Promise((r) => setTimeout(r, 250));
  }
}

/**
 * A herd all due at `due` (ms epoch): `expected` occurrences must arrive; `judged` leaves out
 * records that cannot count (a hanging tenant's). Throughput is first deliveries over the time
 * from the due time (or the first delivery, if earlier) to the last.
 */
export function herdFigures(
  records: SinkRecord[],
  o: { due: number; expected: number; judged?: (r: SinkRecord) => boolean },
): HerdFigures {
  const first = records.filter((r) => r.attempt === 1);
  const judged = o.judged ? records.filter(o.judged) : records;
  const lags = first.map((r) => r.at - r.scheduled);
  const occ = occurrences(judged);
  let firstAt = Number.POSITIVE_INFINITY;
  let lastAt = Number.NEGATIVE_INFINITY;
  for (const r of first) {
    firstAt = Math.min(firstAt, r.at);
    lastAt = Math.max(lastAt, r.at);
  }
  return {
    deliveredAllMs: first.length ? lastAt - o.due : null,
    deliveriesPerSecond:
      first.length > 1 ? Math.round((first.length / Math.max(1, lastAt - Math.min(firstAt, o.due))) * 1000) : null,
    lag: summarize(lags),
    duplicates: occ.duplicates,
    missing: o.expected - occ.count,
    deliveries: judged.length,
    points: first.map((r) => ({ t: (r.at - o.due) / 1000, lag: r.at - r.scheduled })),
    lags,
    first,
  };
}

export interface SteadyFigures {
  lag: Summary;
  lagAfterWarmup: Summary;
  trend: ReturnType<typeof trend>;
  /** the first 10 s, second by second */
  warmup: ReturnType<typeof trend>;
  delivered: number;
  expected: number;
  duplicates: number;
  missing: number;
  points: { t: number; lag: number }[];
  lags: number[];
}

/** `perSecond` occurrences due every second from `start` (ms epoch, a whole second) for `seconds`. */
export function steadyFigures(
  records: SinkRecord[],
  o: { start: number; seconds: number; perSecond: number },
): SteadyFigures {
  const end = o.start + o.seconds * 1000;
  const all = records.filter((r) => r.scheduled >= o.start && r.scheduled < end);
  const inWindow = all.filter((r) => r.attempt === 1);
  const lags = inWindow.map((r) => r.at - r.scheduled);
  const occ = occurrences(all);
  const expected = o.perSecond * o.seconds;
  return {
    lag: summarize(lags),
    // The first 10 s include warm-up (JIT, connection pools, the sink's connections):
    // reported apart, never instead of the whole.
    lagAfterWarmup: summarize(inWindow.filter((r) => r.scheduled >= o.start + 10_000).map((r) => r.at - r.scheduled)),
    trend: trend(
      inWindow.map((r) => ({ at: r.scheduled, value: r.at - r.scheduled })),
      o.start,
      10_000,
    ),
    warmup: trend(
      inWindow
        .filter((r) => r.scheduled < o.start + 10_000)
        .map((r) => ({ at: r.scheduled, value: r.at - r.scheduled })),
      o.start,
      1_000,
    ),
    delivered: inWindow.length,
    expected,
    duplicates: occ.duplicates,
    missing: expected - occ.count,
    points: inWindow.map((r) => ({ t: (r.scheduled - o.start) / 1000, lag: r.at - r.scheduled })),
    lags,
  };
}
