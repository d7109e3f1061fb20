// The reaper's second step: the runs selectExpiredRuns locked get their lost attempt recorded as
// failed (its row written from the run row, as every ended attempt's is: complete-runs.ts) and move on as the retry decision says — failed with a next attempt time, or dead.
// Only runs still running in that attempt move (they are locked by the same transaction).
// A one-off whose run went dead this way is shown completed: it was stored so when its run was
// materialized (advance-schedule.ts), so nothing is written to the job.
import { FINISHED_STATUSES, releaseLeases, unlistEnded } from './open-runs';
import { recordAlertOutcomes } from './record-alert-outcomes';
import { distinctTimes, type Queryable, withoutNestedLoops } from './types';

export interface ExpiredRunVerdict {
  id: string;
  scheduledTime: Date;
  attempt: number;
  status: 'failed' | 'dead';
  /** when the retry may start; null when dead */
  nextAttemptAt: Date | null;
  error: string;
}

/** Answers the ids of the runs moved. */
export async function failExpiredRuns(tx: Queryable, verdicts: ExpiredRunVerdict[]): Promise<string[]> {
  if (!verdicts.length) return [];
  // Every join here is between the batch and rows found by key (withoutNestedLoops in types.ts).
  const { rows } = await withoutNestedLoops(tx, () =>
    tx.query<{ id: string; tenant_id: string; job_id: string; status: string }>(
      `WITH v AS (
       SELECT * FROM unnest($1::text[], $2::timestamptz[], $3::int[], $4::text[], $5::timestamptz[], $6::text[])
         AS v(id, scheduled_time, attempt, status, next_attempt_at, error)
     ), moved AS (
       UPDATE runs r
       SET status = v.status,
           finished_at = CASE WHEN v.status = 'dead' THEN now() END,
           dead_at = CASE WHEN v.status = 'dead' THEN now() END,
           next_attempt_at = v.next_attempt_at,
           lease_expires_at = NULL,
           last_error = v.error
       FROM v
       WHERE r.id = v.id AND r.scheduled_time = v.scheduled_time AND r.scheduled_time = ANY($7::timestamptz[])
         -- by primary key, whatever the partition's statistics (see claimRuns in claim-runs.ts)
         AND r.id = ANY($1::text[])
         AND r.attempt = v.attempt AND r.status = 'running'
       RETURNING r.id, r.scheduled_time, r.attempt, r.tenant_id, r.job_id, r.status, r.worker_id,
                 r.attempt_started_at, r.started_at
     ), closed AS (
       INSERT INTO run_attempts (run_id, scheduled_time, tenant_id, job_id, attempt, worker_id, status, started_at,
                                 finished_at, error)
       SELECT m.id, m.scheduled_time, m.tenant_id, m.job_id, m.attempt, m.worker_id, 'failed',
              COALESCE(m.attempt_started_at, m.started_at, now()), now(), v.error
       FROM moved m JOIN v ON v.id = m.id AND v.scheduled_time = m.scheduled_time
       -- a 'running' row left by the previous version (complete-runs.ts): closed, its start kept
       ON CONFLICT (run_id, scheduled_time, attempt) DO UPDATE
          SET status = EXCLUDED.status, finished_at = EXCLUDED.finished_at, error = EXCLUDED.error
        WHERE run_attempts.status = 'running'
     ), unlisted AS (
       DELETE FROM running_runs x USING moved m
        WHERE x.run_id = ANY($1::text[]) AND x.run_id = m.id AND x.scheduled_time = m.scheduled_time
     ), ended AS (
       -- dead: no longer open (open-runs.ts); a retry stays listed, its lease cleared
       ${unlistEnded('moved', `e.status IN ${FINISHED_STATUSES}`)}
     ), released AS (
       ${releaseLeases('moved', `e.status NOT IN ${FINISHED_STATUSES}`)}
     )
     SELECT id, tenant_id, job_id, status FROM moved`,
      [
        verdicts.map((v) => v.id),
        verdicts.map((v) => v.scheduledTime),
        verdicts.map((v) => v.attempt),
        verdicts.map((v) => v.status),
        verdicts.map((v) => v.nextAttemptAt),
        verdicts.map((v) => v.error),
        distinctTimes(verdicts.map((v) => v.scheduledTime)),
      ],
    ),
  );
  // A lost attempt is a failure like any other for the incident rules.
  await recordAlertOutcomes(
    tx,
    rows.map((r) => ({ runId: r.id, tenantId: r.tenant_id, jobId: r.job_id, status: r.status })),
  );
  return rows.map((r) => r.id);
}
