// The reaper's second step: the runs selectExpiredRuns locked get their lost attempt closed as
// failed and move on as the retry decision says — failed with a next attempt time, or dead.
// Only runs still running in that attempt move (they are locked by the same transaction).
// A one-off whose run went dead this way is completed.
import { completeFinishedJobs } from './complete-finished-jobs';
import { recordAlertOutcomes } from './record-alert-outcomes';
import { distinctTimes, type Queryable } from './types';

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
  const { rows } = await tx.query<{ id: string; tenant_id: string; job_id: string; status: string }>(
    `WITH v AS (
       SELECT * FROM unnest($1::text[], $2::timestamptz[], $3::int[], $4::text[], $5::timestamptz[], $6::text[])
         AS v(id, scheduled_time, attempt, status, next_attempt_at, error)
     ), moved AS (
       UPDATE runs r
       SET status = v.status,
           finished_at = CASE WHEN v.status = 'dead' THEN now() END,
           next_attempt_at = v.next_attempt_at,
           lease_expires_at = NULL,
           last_error = v.error
       FROM v
       WHERE r.id = v.id AND r.scheduled_time = v.scheduled_time AND r.scheduled_time = ANY($7::timestamptz[])
         -- by primary key, whatever the partition's statistics (see claimRuns in claim-runs.ts)
         AND r.id = ANY($1::text[])
         AND r.attempt = v.attempt AND r.status = 'running'
       RETURNING r.id, r.scheduled_time, r.attempt, r.tenant_id, r.job_id, r.status
     ), closed AS (
       UPDATE run_attempts a SET status = 'failed', finished_at = now(), error = v.error
       FROM moved m JOIN v ON v.id = m.id
       WHERE a.run_id = m.id AND a.scheduled_time = m.scheduled_time AND a.scheduled_time = ANY($7::timestamptz[])
         AND a.run_id = ANY($1::text[])
         AND a.attempt = m.attempt AND a.status = 'running'
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
  );
  await completeFinishedJobs(
    tx,
    rows.filter((r) => r.status === 'dead').map((r) => r.job_id),
  );
  // A lost attempt is a failure like any other for the incident rules.
  await recordAlertOutcomes(
    tx,
    rows.map((r) => ({ runId: r.id, tenantId: r.tenant_id, jobId: r.job_id, status: r.status })),
  );
  return rows.map((r) => r.id);
}
