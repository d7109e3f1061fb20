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
