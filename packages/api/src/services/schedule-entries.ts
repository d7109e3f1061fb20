// The scheduler's due-scan index. A job's next_run_at is set exactly while it is active and has
// a next occurrence; the engine scans jobs_due_idx (partition, next_run_at) and advances it as
// it materializes runs. Every API change to a job's schedule or status goes
// through here, inside the transaction that changes the job.
import { nextFireTime, type ScheduleSpec } from '@belfry/core';
import { CANCEL_CHANNEL, cancelClaimedAheadRuns, openRunOf, unlistEnded } from '@belfry/db';
import type { Queryable } from '../sql/tx';

/**
 * When the job next fires, seen from `now`. A one-off job keeps its runAt even when that is
 * past: the scheduler then runs it at once, or applies the misfire policy when it is older
 * than the misfire grace. Cron and interval specs give the first time strictly after now.
 */
export function nextRunAt(spec: ScheduleSpec, now: Date): Date | null {
  return spec.type === 'once' ? spec.runAt : nextFireTime(spec, now);
}

/** Sets the job's next occurrence. Called with the job's row locked, inside the change's transaction. */
export async function setNextRunAt(db: Queryable, entry: { jobId: string; nextRunAt: Date }): Promise<void> {
  await db.query('UPDATE jobs SET next_run_at = $2 WHERE id = $1', [entry.jobId, entry.nextRunAt]);
}

/** The job has no next occurrence (its schedule is exhausted, or that occurrence already has its run). */
export async function clearNextRunAt(db: Queryable, jobId: string): Promise<void> {
  await db.query('UPDATE jobs SET next_run_at = NULL WHERE id = $1 AND next_run_at IS NOT NULL', [jobId]);
}

/**
 * Cancels the job's runs that have not started: pending ones, failed ones waiting for a
 * retry, and scheduled runs a worker claimed ahead of their time and waits to start (it is
 * told, and never calls the target). A worker that fetches the queue message of a cancelled
 * run finds it cancelled and drops it. Runs whose target call has begun go on.
 */
export async function cancelOpenRuns(db: Queryable, tenantId: string, jobId: string, now: Date): Promise<number> {
  const { rowCount } = await db.query(
    `WITH cancelled AS (
       UPDATE runs r SET status = 'cancelled', finished_at = $3, next_attempt_at = NULL
        WHERE ${openRunOf('r', '$1')} AND r.job_id = $1 AND r.tenant_id = $2 AND r.status IN ('pending', 'failed')
        RETURNING r.id, r.scheduled_time, r.job_id
     ), ended AS (
       ${unlistEnded('cancelled')}
     )
     SELECT id FROM cancelled`,
    [jobId, tenantId, now],
  );
  const claimed = await cancelClaimedAheadRuns(db, tenantId, jobId, now);
  return (rowCount ?? 0) + claimed.length;
}

/**
 * The attempt rows of running runs being cancelled whose workers will never report their end:
 * claimed ahead and not yet due (told, they never start), or their lease expired (the worker is
 * gone). `which` picks the runs from `runs o`, read as before the cancelling UPDATE of the same
 * statement; $3 is the cancel's time. A later report of such an attempt finds its row and changes
 * nothing (the enders' ON CONFLICT ... WHERE status = 'running'). Used by cancelRun (runs.ts)
 * and cancelRunningContainerRuns below.
 */
export function insertUnreportedAttempts(which: string): string {
  return `INSERT INTO run_attempts (run_id, scheduled_time, tenant_id, job_id, attempt, worker_id, status,
                                   started_at, finished_at, error)
         SELECT o.id, o.scheduled_time, o.tenant_id, o.job_id, o.attempt, o.worker_id, 'cancelled',
                LEAST(COALESCE(o.attempt_started_at, o.started_at, $3), $3), $3,
                CASE WHEN COALESCE(o.due_at, o.scheduled_time) > clock_timestamp() THEN 'cancelled before it started'
                     ELSE 'run cancelled while running' END
           FROM runs o
          WHERE ${which} AND o.status = 'running' AND o.attempt >= 1
            AND (COALESCE(o.due_at, o.scheduled_time) > clock_timestamp() OR o.lease_expires_at <= now())
         -- a 'running' row left by the previous version (complete-runs.ts in @belfry/db): closed
         ON CONFLICT (run_id, scheduled_time, attempt) DO UPDATE
            SET status = EXCLUDED.status, finished_at = EXCLUDED.finished_at, error = EXCLUDED.error,
                started_at = LEAST(run_attempts.started_at, EXCLUDED.finished_at)
          WHERE run_attempts.status = 'running'`;
}

/**
 * Pausing a job whose target is a container also stops its running runs (docs/api.md,
 * "Container targets"): they are cancelled, and the workers holding them hear it (NOTIFY on
 * commit) and stop their containers. Runs of other kinds finish the call they began. Answers how
 * many were cancelled.
 */
export async function cancelRunningContainerRuns(
  db: Queryable,
  tenantId: string,
  jobId: string,
  now: Date,
): Promise<number> {
  // A run whose worker will never report (lease expired) gets its attempt's row here.
  const { rows } = await db.query<{ id: string }>(
    `WITH cancelled AS (
       UPDATE runs r SET status = 'cancelled', finished_at = $3, next_attempt_at = NULL, lease_expires_at = NULL
         FROM jobs j
        WHERE j.id = r.job_id AND j.target->>'type' = 'container'
          AND ${openRunOf('r', '$1')} AND r.job_id = $1 AND r.tenant_id = $2 AND r.status = 'running'
        RETURNING r.id, r.scheduled_time, r.job_id
     ), ended AS (
       ${unlistEnded('cancelled')}
     ), closed AS (
       ${insertUnreportedAttempts(
         `(o.id, o.scheduled_time) IN (SELECT c.id, c.scheduled_time FROM cancelled c) AND o.job_id = $1
            AND o.tenant_id = $2`,
       )}
     ), unlisted AS (
       DELETE FROM running_runs x USING cancelled c WHERE x.run_id = c.id AND x.scheduled_time = c.scheduled_time
     )
     SELECT id FROM cancelled`,
    [jobId, tenantId, now],
  );
  for (const r of rows) await db.query('SELECT pg_notify($1, $2)', [CANCEL_CHANNEL, r.id]);
  return rows.length;
}

/**
 * Takes back the occurrences the scheduler materialized ahead of time (up to ~10.5 s early) and
 * no worker has touched: scheduled runs still pending and not yet due. They are deleted, not
 * cancelled: they are not history (nothing was due yet), and a cancelled run would occupy its
 * occurrence for good (one scheduled run per occurrence), so resuming before that time, or a
 * new schedule that fires at the same instant, could not run it. Their queue messages are
 * dropped by the worker that fetches them. A run already claimed ahead is cancelled instead
 * (its worker is told). Answers how many runs were withdrawn or cancelled.
 */
export async function withdrawFutureScheduledRuns(
  db: Queryable,
  tenantId: string,
  jobId: string,
  now: Date,
): Promise<number> {
  const { rowCount } = await db.query(
    `WITH withdrawn AS (
       DELETE FROM runs r
        WHERE ${openRunOf('r', '$1')} AND r.job_id = $1 AND r.tenant_id = $2 AND r.trigger = 'schedule'
          AND r.status = 'pending' AND r.attempt = 0 AND r.scheduled_time > greatest($3::timestamptz, now())
        RETURNING r.id, r.scheduled_time, r.job_id
     ), ended AS (
       ${unlistEnded('withdrawn')}
     )
     SELECT id FROM withdrawn`,
    [jobId, tenantId, now],
  );
  const claimed = await cancelClaimedAheadRuns(db, tenantId, jobId, now);
  return (rowCount ?? 0) + claimed.length;
}

/**
 * The scheduled run of a one-off's occurrence, if it was materialized already: its status
 * decides whether resuming or rescheduling the job to that same time has anything left to
 * run (at most one scheduled run per occurrence, whatever happens).
 */
export async function occurrenceRunStatus(db: Queryable, jobId: string, at: Date): Promise<string | null> {
  const { rows } = await db.query<{ status: string }>(
    `SELECT status FROM runs WHERE job_id = $1 AND trigger = 'schedule' AND scheduled_time = $2`,
    [jobId, at],
  );
  return rows[0]?.status ?? null;
}
