// Heartbeat and fenced completion of a pull-queue lease. A lease is held by (run, attempt,
// worker) while the run is running and the lease has not expired; anything else — a later
// claim, a cancel, the reaper — means the holder lost it. Completion is fenced on the same
// columns as an engine worker's (completeAttempts in complete-runs.ts), plus the lease's expiry;
// successes are recorded a batch at a time (finishPullSuccesses), everything else one by one.
// The attempt in progress lives on the run row (attempt, worker_id, attempt_started_at): its
// run_attempts row is written when it ends, by the statement that fences the run.
import type { Priority } from '@belfry/core';
import { FINISHED_STATUSES, unlistEnded } from './open-runs';
import { distinctTimes, type Queryable } from './types';

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
  // A heartbeat asking for less than the claim gave moves the lease earlier: running_runs's copy
  // (where the reaper looks, claim-runs.ts) follows, or the reaper would wait for the claim's.
  const { rows } = await db.query<{ lease_expires_at: Date }>(
    `WITH extended AS (
       UPDATE runs r
          SET lease_expires_at = LEAST(now() + make_interval(secs => $6::float8 / 1000),
                                       r.attempt_started_at + make_interval(secs => j.timeout_seconds))
         FROM jobs j
        WHERE r.id = $1 AND r.scheduled_time = $2 AND r.tenant_id = $3 AND r.attempt = $4 AND r.worker_id = $5
          AND r.status = 'running' AND r.lease_expires_at > now()
          AND j.id = r.job_id
        RETURNING r.lease_expires_at
     ), lowered AS (
       UPDATE running_runs x SET leased_until = e.lease_expires_at FROM extended e
        WHERE x.run_id = $1 AND x.scheduled_time = $2 AND x.leased_until > e.lease_expires_at
     )
     SELECT lease_expires_at FROM extended`,
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
  db_now: Date;
}

/** The run of a held lease, locked for its completion; null when the lease is no longer held. */
export async function lockHeldPullRun(tx: Queryable, lease: PullLease): Promise<HeldPullRun | null> {
  const { rows } = await tx.query<HeldPullRun>(
    `SELECT r.job_id, r.priority, j.target->>'type' AS target_type, j.target->>'queue' AS target_queue,
            j.retry_max_attempts, j.retry_initial_delay_seconds, j.retry_max_delay_seconds,
            now() AS db_now
       FROM runs r
       JOIN jobs j ON j.id = r.job_id
      WHERE r.id = $1 AND r.scheduled_time = $2 AND r.tenant_id = $3 AND r.attempt = $4 AND r.worker_id = $5
        AND r.status = 'running' AND r.lease_expires_at > now()
      FOR NO KEY UPDATE OF r`,
    [lease.runId, lease.scheduledTime, lease.tenantId, lease.attempt, lease.worker],
  );
  return rows[0] ?? null;
}

/**
 * Records the lease's attempt as cancelled when its run was cancelled while it was held (once:
 * a second report finds it recorded). An attempt row still open from before attempts were
 * written at their end (a run cancelled while held across the upgrade) is closed instead.
 */
export async function closeCancelledAttempt(db: Queryable, lease: PullLease): Promise<void> {
  await db.query(
    `INSERT INTO run_attempts (run_id, scheduled_time, tenant_id, job_id, attempt, worker_id, status, started_at,
                               finished_at, duration_ms, error)
     SELECT r.id, r.scheduled_time, r.tenant_id, r.job_id, r.attempt, r.worker_id, 'cancelled', s.started_at, now(),
            (extract(epoch FROM now() - s.started_at) * 1000)::int, 'run cancelled while running'
       FROM runs r, LATERAL (SELECT COALESCE(r.attempt_started_at, r.started_at, now()) AS started_at) s
      WHERE r.id = $1 AND r.scheduled_time = $2 AND r.tenant_id = $3 AND r.attempt = $4 AND r.worker_id = $5
        AND r.status = 'cancelled'
     ON CONFLICT (run_id, scheduled_time, attempt) DO UPDATE
        SET status = 'cancelled', finished_at = now(), error = excluded.error,
            duration_ms = (extract(epoch FROM now() - run_attempts.started_at) * 1000)::int
      WHERE run_attempts.status = 'running' AND run_attempts.worker_id = $5`,
    [lease.runId, lease.scheduledTime, lease.tenantId, lease.attempt, lease.worker],
  );
}

/** How a held attempt ended, as the worker reported it (the retry decision already taken). */
export interface PullOutcome {
  runStatus: 'succeeded' | 'failed' | 'dead';
  /** when a failed run is tried again (runStatus failed) */
  nextAttemptAt: Date | null;
  error: string | null;
  /** the worker's output, kept as the attempt's responseSnippet */
  output: string | null;
}

/**
 * One row per attempt of the finished run (in attempt order), each with the run's columns; a
 * run without attempt rows comes back as one row whose a_* columns are null.
 */
export interface FinishedPullRunRow {
  id: string;
  tenant_id: string;
  job_id: string;
  scheduled_time: Date;
  due_at: Date;
  status: 'succeeded' | 'failed' | 'dead';
  skip_reason: null;
  attempt: number;
  trigger: 'schedule' | 'manual' | 'replay';
  replay_of: string | null;
  priority: Priority;
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
  a_attempt: number | null;
  a_worker_id: string | null;
  a_status: 'running' | 'succeeded' | 'failed' | 'cancelled' | null;
  a_started_at: Date | null;
  a_finished_at: Date | null;
  a_http_status: number | null;
  a_duration_ms: number | null;
  a_error: string | null;
  a_response_snippet: string | null;
  a_exit_code: number | null;
}

/**
 * Records the outcome of a held lease in one statement: the run takes its new status (fenced:
 * same attempt, same worker, running, lease not expired), its attempt row is written (duration
 * from the attempt's start, by the database's clock), and the answer is the run with all its attempts
 * — what the completion answers, without reading the run again. No rows: the lease is no longer
 * held. The caller then completes finished one-offs and records alert outcomes (completeAttempts
 * does the same for engine workers).
 */
export async function finishPullAttempt(
  tx: Queryable,
  lease: PullLease,
  outcome: PullOutcome,
): Promise<FinishedPullRunRow[]> {
  // A first attempt has no earlier ones to read back: a smaller statement to plan.
  const earlier =
    lease.attempt > 1
      ? `UNION ALL
       SELECT p.attempt, p.worker_id, p.status, p.started_at, p.finished_at, p.http_status, p.duration_ms,
              p.error, p.response_snippet, p.exit_code
         FROM run_attempts p, done d
        WHERE p.run_id = $1 AND p.scheduled_time = $2 AND p.tenant_id = $3 AND p.attempt < d.attempt`
      : '';
  const { rows } = await tx.query<FinishedPullRunRow>(
    `WITH done AS (
       UPDATE runs r
          SET status = $6,
              finished_at = CASE WHEN $6 IN ('succeeded', 'dead') THEN now() END,
              dead_at = CASE WHEN $6 = 'dead' THEN now() END,
              next_attempt_at = $7, lease_expires_at = NULL, last_error = $8
        WHERE r.id = $1 AND r.scheduled_time = $2 AND r.tenant_id = $3 AND r.attempt = $4 AND r.worker_id = $5
          AND r.status = 'running' AND r.lease_expires_at > now()
       RETURNING r.id, r.tenant_id, r.job_id, r.scheduled_time, COALESCE(r.due_at, r.scheduled_time) AS due_at,
                 r.status, r.skip_reason, r.attempt, r.trigger, r.replay_of, r.priority, r.created_at,
                 r.started_at, r.finished_at, r.worker_id, COALESCE(r.attempt_started_at, r.started_at, now()) AS attempt_start
     ), closed AS (
       INSERT INTO run_attempts (run_id, scheduled_time, tenant_id, job_id, attempt, worker_id, status, started_at,
                                 finished_at, duration_ms, error, response_snippet)
       SELECT d.id, d.scheduled_time, d.tenant_id, d.job_id, d.attempt, d.worker_id,
              CASE WHEN $6 = 'succeeded' THEN 'succeeded' ELSE 'failed' END, d.attempt_start, now(),
              GREATEST(0, (EXTRACT(EPOCH FROM now() - d.attempt_start) * 1000))::int, $8, $9
         FROM done d
       -- a 'running' row left by the previous version (complete-runs.ts): closed from its own
       -- start, and answered (RETURNING gives the updated row)
       ON CONFLICT (run_id, scheduled_time, attempt) DO UPDATE
          SET worker_id = EXCLUDED.worker_id, status = EXCLUDED.status, finished_at = EXCLUDED.finished_at,
              duration_ms = GREATEST(0, (EXTRACT(EPOCH FROM now() - run_attempts.started_at) * 1000))::int,
              error = EXCLUDED.error, response_snippet = EXCLUDED.response_snippet
        WHERE run_attempts.status = 'running'
       RETURNING attempt, worker_id, status, started_at, finished_at, http_status, duration_ms,
                 error, response_snippet, exit_code
     ), unlisted AS (
       -- no longer running (the reaper's list, claim-runs.ts)
       DELETE FROM running_runs x USING done d WHERE x.run_id = $1 AND x.scheduled_time = $2 AND x.run_id = d.id
     ), ended AS (
       -- finished: no longer open (open-runs.ts); a retry stays listed
       ${unlistEnded('done', `e.status IN ${FINISHED_STATUSES}`)}
     ), attempts AS (
       SELECT * FROM closed
       ${earlier}
     )
     SELECT d.id, d.tenant_id, d.job_id, d.scheduled_time, d.due_at, d.status, d.skip_reason, d.attempt, d.trigger,
            d.replay_of, d.priority, d.created_at, d.started_at, d.finished_at,
            x.attempt AS a_attempt, x.worker_id AS a_worker_id, x.status AS a_status, x.started_at AS a_started_at,
            x.finished_at AS a_finished_at, x.http_status AS a_http_status, x.duration_ms AS a_duration_ms,
            x.error AS a_error, x.response_snippet AS a_response_snippet, x.exit_code AS a_exit_code
       FROM done d LEFT JOIN attempts x ON true
      ORDER BY x.attempt`,
    [
      lease.runId,
      lease.scheduledTime,
      lease.tenantId,
      lease.attempt,
      lease.worker,
      outcome.runStatus,
      outcome.nextAttemptAt,
      outcome.error,
      outcome.output,
    ],
  );
  return rows;
}

/** A held lease whose attempt the worker reported succeeded, with its output. */
export interface PullSuccess {
  lease: PullLease;
  output: string | null;
}

/** finishPullAttempt's rows, each naming its run (run_id = id) for a batch's answers. */
export type FinishedPullRunRows = Map<string, FinishedPullRunRow[]>;

/**
 * finishPullAttempt for a batch of successes in one statement: each run whose lease is still
 * held (same fence, per run) succeeds and its attempt row is written; the answer is, per run that did,
 * its rows with all its attempts (in attempt order). A run missing from the answer no longer
 * held its lease. The caller completes finished one-offs and records the alert outcomes in the
 * same transaction, as after finishPullAttempt. Run ids must be distinct.
 *
 * The REST completions that arrive together share this (services/pull-completions.ts): a
 * success used to cost five round trips (BEGIN, the fenced update, the one-off check, the
 * alert outcome, COMMIT); a batch of them costs the same five.
 */
export async function finishPullSuccesses(tx: Queryable, successes: PullSuccess[]): Promise<FinishedPullRunRows> {
  const answer: FinishedPullRunRows = new Map();
  if (!successes.length) return answer;
  // First attempts have no earlier ones to read back: a smaller statement to plan.
  const earlier = successes.some((s) => s.lease.attempt > 1)
    ? `UNION ALL
       SELECT p.run_id, p.attempt, p.worker_id, p.status, p.started_at, p.finished_at, p.http_status, p.duration_ms,
              p.error, p.response_snippet, p.exit_code
         FROM done d JOIN run_attempts p
           ON p.run_id = d.id AND p.scheduled_time = d.scheduled_time AND p.tenant_id = d.tenant_id
          AND p.attempt < d.attempt
        WHERE d.attempt > 1 AND p.run_id = ANY($1::text[]) AND p.scheduled_time = ANY($7::timestamptz[])`
    : '';
  const { rows } = await tx.query<FinishedPullRunRow>(
    `WITH l AS (
       SELECT * FROM unnest($1::text[], $2::timestamptz[], $3::text[], $4::int[], $5::text[], $6::text[])
         AS l(run_id, scheduled_time, tenant_id, attempt, worker, output)
     ), done AS (
       UPDATE runs r
          SET status = 'succeeded', finished_at = now(), next_attempt_at = NULL, lease_expires_at = NULL,
              last_error = NULL
         FROM l
        -- r.id = ANY: found by key even when the day's statistics predate a herd (claim-runs.ts)
        WHERE r.id = ANY($1::text[]) AND r.id = l.run_id AND r.scheduled_time = l.scheduled_time
          AND r.scheduled_time = ANY($7::timestamptz[])
          AND r.tenant_id = l.tenant_id AND r.attempt = l.attempt AND r.worker_id = l.worker
          -- IS NOT DISTINCT FROM: the fence of = 'running', which no partial index can match
          -- (see complete-runs.ts).
          AND r.status IS NOT DISTINCT FROM 'running' AND r.lease_expires_at > now()
       RETURNING r.id, r.tenant_id, r.job_id, r.scheduled_time, COALESCE(r.due_at, r.scheduled_time) AS due_at,
                 r.status, r.skip_reason, r.attempt, r.trigger, r.replay_of, r.priority, r.created_at,
                 r.started_at, r.finished_at, l.output, r.worker_id,
                 COALESCE(r.attempt_started_at, r.started_at, now()) AS attempt_start
     ), closed AS (
       INSERT INTO run_attempts (run_id, scheduled_time, tenant_id, job_id, attempt, worker_id, status, started_at,
                                 finished_at, duration_ms, response_snippet)
       SELECT d.id, d.scheduled_time, d.tenant_id, d.job_id, d.attempt, d.worker_id, 'succeeded', d.attempt_start, now(),
              GREATEST(0, (EXTRACT(EPOCH FROM now() - d.attempt_start) * 1000))::int, d.output
         FROM done d
       -- a 'running' row left by the previous version: closed and answered (finishPullAttempt)
       ON CONFLICT (run_id, scheduled_time, attempt) DO UPDATE
          SET worker_id = EXCLUDED.worker_id, status = EXCLUDED.status, finished_at = EXCLUDED.finished_at,
              duration_ms = GREATEST(0, (EXTRACT(EPOCH FROM now() - run_attempts.started_at) * 1000))::int,
              error = NULL, response_snippet = EXCLUDED.response_snippet
        WHERE run_attempts.status = 'running'
       RETURNING run_id, attempt, worker_id, status, started_at, finished_at, http_status,
                 duration_ms, error, response_snippet, exit_code
     ), unlisted AS (
       -- no longer running (the reaper's list, claim-runs.ts)
       DELETE FROM running_runs x USING done d
        WHERE x.run_id = ANY($1::text[]) AND x.run_id = d.id AND x.scheduled_time = d.scheduled_time
     ), ended AS (
       -- no longer open (open-runs.ts)
       ${unlistEnded('done')}
     ), attempts AS (
       SELECT * FROM closed
       ${earlier}
     )
     SELECT d.id, d.tenant_id, d.job_id, d.scheduled_time, d.due_at, d.status, d.skip_reason, d.attempt, d.trigger,
            d.replay_of, d.priority, d.created_at, d.started_at, d.finished_at,
            x.attempt AS a_attempt, x.worker_id AS a_worker_id, x.status AS a_status, x.started_at AS a_started_at,
            x.finished_at AS a_finished_at, x.http_status AS a_http_status, x.duration_ms AS a_duration_ms,
            x.error AS a_error, x.response_snippet AS a_response_snippet, x.exit_code AS a_exit_code
       FROM done d LEFT JOIN attempts x ON x.run_id = d.id
      ORDER BY d.id, x.attempt`,
    [
      successes.map((s) => s.lease.runId),
      successes.map((s) => s.lease.scheduledTime),
      successes.map((s) => s.lease.tenantId),
      successes.map((s) => s.lease.attempt),
      successes.map((s) => s.lease.worker),
      successes.map((s) => s.output),
      distinctTimes(successes.map((s) => s.lease.scheduledTime)),
    ],
  );
  for (const row of rows) {
    const list = answer.get(row.id);
    if (list) list.push(row);
    else answer.set(row.id, [row]);
  }
  return answer;
}
