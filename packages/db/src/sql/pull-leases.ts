// Heartbeat and fenced completion of a pull-queue lease. A lease is held by (run, attempt,
// worker) while the run is running and the lease has not expired; anything else — a later
// claim, a cancel, the reaper — means the holder lost it. Completion itself goes through
// completeAttempts (complete-runs.ts), the same fenced statement engine workers use.
import type { Queryable } from './types';

export interface PullLease {
  runId: string;
  scheduledTime: Date;
  tenantId: string;
  attempt: number;
  worker: string;
}

/**
 * Extends a held lease to now + leaseMs, but never past the job's timeoutSeconds from the
 * attempt's start. Answers the new expiry, or null when the lease is no longer held.
 */
export async function extendPullLease(db: Queryable, lease: PullLease, leaseMs: number): Promise<Date | null> {
  const { rows } = await db.query<{ lease_expires_at: Date }>(
    `UPDATE runs r
        SET lease_expires_at = LEAST(now() + make_interval(secs => $6::float8 / 1000),
                                     a.started_at + make_interval(secs => j.timeout_seconds))
       FROM jobs j, run_attempts a
      WHERE r.id = $1 AND r.scheduled_time = $2 AND r.tenant_id = $3 AND r.attempt = $4 AND r.worker_id = $5
        AND r.status = 'running' AND r.lease_expires_at > now()
        AND j.id = r.job_id
        AND a.run_id = r.id AND a.scheduled_time = r.scheduled_time AND a.attempt = r.attempt
      RETURNING r.lease_expires_at`,
    [lease.runId, lease.scheduledTime, lease.tenantId, lease.attempt, lease.worker, leaseMs],
  );
  return rows[0]?.lease_expires_at ?? null;
}

export interface HeldPullRun {
  job_id: string;
  priority: string;
  target_type: string;
  target_queue: string | null;
  retry_max_attempts: number;
  retry_initial_delay_seconds: number;
  retry_max_delay_seconds: number;
  attempt_started_at: Date;
  db_now: Date;
}

/** The run of a held lease, locked for its completion; null when the lease is no longer held. */
export async function lockHeldPullRun(tx: Queryable, lease: PullLease): Promise<HeldPullRun | null> {
  const { rows } = await tx.query<HeldPullRun>(
    `SELECT r.job_id, r.priority, j.target->>'type' AS target_type, j.target->>'queue' AS target_queue,
            j.retry_max_attempts, j.retry_initial_delay_seconds, j.retry_max_delay_seconds,
            a.started_at AS attempt_started_at, now() AS db_now
       FROM runs r
       JOIN jobs j ON j.id = r.job_id
       JOIN run_attempts a ON a.run_id = r.id AND a.scheduled_time = r.scheduled_time AND a.attempt = r.attempt
      WHERE r.id = $1 AND r.scheduled_time = $2 AND r.tenant_id = $3 AND r.attempt = $4 AND r.worker_id = $5
        AND r.status = 'running' AND r.lease_expires_at > now()
      FOR NO KEY UPDATE OF r`,
    [lease.runId, lease.scheduledTime, lease.tenantId, lease.attempt, lease.worker],
  );
  return rows[0] ?? null;
}

/** Closes the lease's attempt as cancelled when its run was cancelled while it was held. */
export async function closeCancelledAttempt(db: Queryable, lease: PullLease): Promise<void> {
  await db.query(
    `UPDATE run_attempts a SET status = 'cancelled', finished_at = now(), error = 'run cancelled while running',
            duration_ms = (extract(epoch FROM now() - a.started_at) * 1000)::int
       FROM runs r
      WHERE a.run_id = $1 AND a.scheduled_time = $2 AND a.tenant_id = $3 AND a.attempt = $4 AND a.worker_id = $5
        AND a.status = 'running'
        AND r.id = a.run_id AND r.scheduled_time = a.scheduled_time AND r.status = 'cancelled'`,
    [lease.runId, lease.scheduledTime, lease.tenantId, lease.attempt, lease.worker],
  );
}
