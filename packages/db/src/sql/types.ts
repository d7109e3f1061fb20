// The minimal query interface hot-path SQL needs: a pg Pool, or a client inside a transaction.
export interface Queryable {
  query<R extends object = Record<string, unknown>>(
    text: string,
    values?: unknown[],
  ): Promise<{ rows: R[]; rowCount: number | null }>;
}

// Statements that address runs (or run_attempts) by (id, scheduled_time) pairs from an unnest()
// also say `scheduled_time = ANY($times)`: the join alone leaves the planner every daily
// partition to plan and lock (and every one of their indexes), the array constant lets it prune
// to the one or two partitions the batch lives in. Planning time fell from ~3 ms to ~0.6 ms.
//
// That array holds each time once (distinctTimes): it is also an index condition on the primary
// key's second column, and the planner costs every probe by the array's length. A herd's claim of
// 50 runs, all due at the same second, passed 50 copies of one time; each probe looked 50 times
// dearer and the planner scanned the whole day's partition instead (43 ms instead of 7 ms for 50
// runs out of 20,000, growing with the partition).

/** The distinct times of `times`, for a statement's `scheduled_time = ANY(...)` partition guard. */
export function distinctTimes(times: readonly Date[]): Date[] {
  const seen = new Map<number, Date>();
  for (const t of times) if (!seen.has(t.getTime())) seen.set(t.getTime(), t);
  return [...seen.values()];
}
