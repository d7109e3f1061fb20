// The worker heartbeat: extends the leases of every run this worker is executing, in one
// statement. Runs not returned were lost (reaped) or cancelled; their handlers are aborted.
import { distinctTimes, type Queryable } from './types';

export async function extendRunLeases(
  db: Queryable,
  workerId: string,
  leaseMs: number,
  runs: { id: string; scheduledTime: Date; attempt: number }[],
): Promise<Set<string>> {
  if (!runs.length) return new Set();
  // No join to the batch: runs found by primary key (r.id = ANY), each one's attempt checked
  // against the batch's run/attempt keys (a hashed = ANY). A join to an unnest of the batch could
  // be planned as a nested loop reading the whole batch once per run (see withoutNestedLoops in
  // types.ts): a million comparisons for a worker holding 1,000 runs, at every heartbeat.
  //
  // The rows are locked first, in key order (the CTE, read whole by the InitPlan before the
  // UPDATE scans), as the start gate locks runs claimed ahead (confirmRunStarts): locked in the
  // order of whichever scan each statement got (a bitmap scan's heap order against an index
  // scan's), the two deadlocked, and each deadlock held both for deadlock_timeout (1 s). The
  // UPDATE takes exactly the rows locked: the CTE judged them (this worker's attempt, running) on
  // their newest versions, and nobody can change them while they are locked.
  const { rows } = await db.query<{ id: string }>(
    `WITH locked AS MATERIALIZED (
       SELECT r.id FROM runs r
        WHERE r.id = ANY($3::text[]) AND r.scheduled_time = ANY($4::timestamptz[])
          AND r.id || '/' || r.attempt = ANY($5::text[])
          AND r.worker_id = $1 AND r.status = 'running'
        ORDER BY r.id, r.scheduled_time
          FOR NO KEY UPDATE OF r
     )
     UPDATE runs r SET lease_expires_at = now() + make_interval(secs => $2::float8 / 1000)
     WHERE r.id = ANY (ARRAY(SELECT id FROM locked)) AND r.scheduled_time = ANY($4::timestamptz[])
     RETURNING r.id`,
    [
      workerId,
      leaseMs,
      runs.map((r) => r.id),
      distinctTimes(runs.map((r) => r.scheduledTime)),
      runs.map((r) => `${r.id}/${r.attempt}`),
    ],
  );
  return new Set(rows.map((r) => r.id));
}
