// Container runs a node finds on its Docker Engine (by the run id and attempt of the container's
// labels): what became of each run, for the sweeper's decision (adopt, leave, stop, remove),
// and the adoption itself — a running run whose lease expired (its node died) is taken over
// by this worker with the SAME attempt, so the container that still runs is waited for and its
// outcome recorded once, instead of the reaper starting the run a second time. The attempt in
// progress lives on the run row, so the new worker_id there is the attempt's (its row is written
// when it ends, naming the worker that recorded it).
import type { ClaimedRun } from './claim-runs';
import type { Queryable } from './types';

export interface ContainerRunState {
  id: string;
  attempt: number;
  status: string;
  worker_id: string | null;
  /** the run is running and its lease has expired */
  expired: boolean;
}

/** The runs of these (run id, scheduled time) pairs; runs that do not exist are simply absent. */
export async function selectContainerRuns(tx: Queryable, ids: string[], times: Date[]): Promise<ContainerRunState[]> {
  if (!ids.length) return [];
  const { rows } = await tx.query<ContainerRunState>(
    `SELECT r.id, r.attempt, r.status, r.worker_id,
            (r.status = 'running' AND r.lease_expires_at < now()) AS expired
       FROM runs r JOIN unnest($1::text[], $2::timestamptz[]) AS m(id, scheduled_time)
         ON r.id = m.id AND r.scheduled_time = m.scheduled_time
      -- r.id = ANY: by primary key, whatever the partition's statistics (claim-runs.ts)
      WHERE r.id = ANY($1::text[]) AND r.scheduled_time = ANY($2::timestamptz[])`,
    [ids, times],
  );
  return rows;
}

/**
 * Takes over a running run whose lease expired, keeping its attempt: null when it is no
 * longer that (recorded, reaped, cancelled, or adopted by another node first).
 */
export async function adoptContainerRun(
  tx: Queryable,
  workerId: string,
  leaseMs: number,
  run: { id: string; scheduledTime: Date; attempt: number },
): Promise<ClaimedRun | null> {
  const { rows } = await tx.query<ClaimedRun>(
    `WITH adopted AS (
       UPDATE runs r
       SET worker_id = $1, lease_expires_at = now() + make_interval(secs => $2::float8 / 1000)
       WHERE r.id = $3 AND r.scheduled_time = $4 AND r.attempt = $5
         AND r.status = 'running' AND r.lease_expires_at < now()
       RETURNING r.id, r.scheduled_time, COALESCE(r.due_at, r.scheduled_time) AS due_at, r.tenant_id, r.job_id,
                 r.attempt, r.trigger, r.priority, r.next_attempt_at
     )
     SELECT c.*, j.target, j.target_secrets, j.payload, j.timeout_seconds, j.retry_max_attempts, j.retry_initial_delay_seconds,
            j.retry_max_delay_seconds, now() AS db_now
     FROM adopted c JOIN jobs j ON j.id = c.job_id`,
    [workerId, leaseMs, run.id, run.scheduledTime, run.attempt],
  );
  return rows[0] ?? null;
}
