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
  const { rows } = await db.query<{ id: string }>(
    `UPDATE runs r SET lease_expires_at = now() + make_interval(secs => $2::float8 / 1000)
     FROM unnest($3::text[], $4::timestamptz[], $5::int[]) AS h(id, scheduled_time, attempt)
     WHERE r.id = h.id AND r.scheduled_time = h.scheduled_time AND r.scheduled_time = ANY($6::timestamptz[])
       -- by primary key, whatever the partition's statistics (see claimRuns in claim-runs.ts)
       AND r.id = ANY($3::text[])
       AND r.attempt = h.attempt
       AND r.worker_id = $1 AND r.status = 'running'
     RETURNING r.id`,
    [
      workerId,
      leaseMs,
      runs.map((r) => r.id),
      runs.map((r) => r.scheduledTime),
      runs.map((r) => r.attempt),
      distinctTimes(runs.map((r) => r.scheduledTime)),
    ],
  );
  return new Set(rows.map((r) => r.id));
}
