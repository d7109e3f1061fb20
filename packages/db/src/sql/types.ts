// The minimal query interface hot-path SQL needs: a pg Pool, or a client inside a transaction.
export interface Queryable {
  query<R extends object = Record<string, unknown>>(
    text: string | NamedStatement,
    values?: unknown[],
  ): Promise<{ rows: R[]; rowCount: number | null }>;
}

/** A statement with a name: parsed once per connection, then only bound and run (prepared.ts). */
export interface NamedStatement {
  name: string;
  text: string;
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

// A batch joined to its runs (`UPDATE runs r ... FROM unnest(...) AS o WHERE r.id = o.run_id
// AND r.id = ANY(...)`) is planned against the statistics of the day's partition, which in a
// herd predate its runs: the planner expects about one run to pass the fence (status, worker),
// and joins by nested loop with the batch as the inner side, reading the whole batch once per
// run. For the completion's 200 runs that was 40,000 row comparisons and 200 unnests of thirteen
// arrays: 40 ms of the statement's 48 (EXPLAIN ANALYZE, 200 of 200,000 runs), where a hash join
// takes 5. Statements whose every join is between such small sets run with nested loops off.

/**
 * Runs `statement` with nested-loop joins off (SET LOCAL: inside the caller's transaction, then
 * back to the default). Only for statements that join batches to rows found by key: with
 * nested loops off a join to a large table found by anything but an index on the batch's keys
 * is read whole. Outside a transaction the setting has no effect.
 */
export async function withoutNestedLoops<T>(tx: Queryable, statement: () => Promise<T>): Promise<T> {
  await tx.query('SET LOCAL enable_nestloop = off');
  const result = await statement();
  // (a statement that failed left the transaction aborted: its rollback restores the setting)
  await tx.query('SET LOCAL enable_nestloop TO DEFAULT');
  return result;
}
