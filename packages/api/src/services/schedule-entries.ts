// The scheduler's due-scan index. A job has a schedule_entries row exactly while it is
// active and has a next occurrence; the engine scans (partition, next_run_at) and advances
// the row as it materializes runs. Every API change to a job's schedule or status goes
// through here, inside the transaction that changes the job.
import { nextFireTime, type ScheduleSpec } from '@belfry/core';
import type { Queryable } from '../sql/tx';

/**
 * When the job next fires, seen from `now`. A one-off job keeps its runAt even when that is
 * past: the scheduler then runs it at once, or applies the misfire policy when it is older
 * than the misfire grace. Cron and interval specs give the first time strictly after now.
 */
export function nextRunAt(spec: ScheduleSpec, now: Date): Date | null {
  return spec.type === 'once' ? spec.runAt : nextFireTime(spec, now);
}

export async function putScheduleEntry(
  db: Queryable,
  entry: { jobId: string; tenantId: string; partition: number; nextRunAt: Date },
): Promise<void> {
  await db.query(
    `INSERT INTO schedule_entries (job_id, tenant_id, partition, next_run_at) VALUES ($1, $2, $3, $4)
     ON CONFLICT (job_id) DO UPDATE SET next_run_at = EXCLUDED.next_run_at, partition = EXCLUDED.partition`,
    [entry.jobId, entry.tenantId, entry.partition, entry.nextRunAt],
  );
}

export async function deleteScheduleEntry(db: Queryable, jobId: string): Promise<void> {
  await db.query('DELETE FROM schedule_entries WHERE job_id = $1', [jobId]);
}

/**
 * Cancels the job's runs that have not started: pending ones and failed ones waiting for a
 * retry. A worker that fetches their queue message finds them cancelled and drops it.
 */
export async function cancelOpenRuns(db: Queryable, tenantId: string, jobId: string, now: Date): Promise<number> {
  const { rowCount } = await db.query(
    `UPDATE runs SET status = 'cancelled', finished_at = $3, next_attempt_at = NULL
      WHERE job_id = $1 AND tenant_id = $2 AND status IN ('pending', 'failed')`,
    [jobId, tenantId, now],
  );
  return rowCount ?? 0;
}

/** Cancels occurrences the scheduler materialized ahead of time under the old schedule. */
export async function cancelFutureScheduledRuns(
  db: Queryable,
  tenantId: string,
  jobId: string,
  now: Date,
): Promise<number> {
  const { rowCount } = await db.query(
    `UPDATE runs SET status = 'cancelled', finished_at = $3
      WHERE job_id = $1 AND tenant_id = $2 AND trigger = 'schedule' AND status = 'pending' AND scheduled_time > $3`,
    [jobId, tenantId, now],
  );
  return rowCount ?? 0;
}
