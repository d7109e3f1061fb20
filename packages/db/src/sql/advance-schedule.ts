// Moves schedule entries to their next occurrence, and retires the entries of jobs whose
// schedule is exhausted (a one-off whose occurrence was just materialized). Such a job stays
// 'active' until that run has finished; only when nothing of its schedule is left open (the
// occurrence was skipped, or already had a finished run) is it 'completed' here at once.
import { completeFinishedJobs } from './complete-finished-jobs';
import type { Queryable } from './types';

/**
 * `open`: jobs known to have a scheduled run still open (one just materialized in the same
 * transaction); they cannot be completed yet, so they are not even looked at.
 */
export async function advanceSchedule(
  tx: Queryable,
  advance: { jobId: string; next: Date }[],
  exhausted: string[],
  open: ReadonlySet<string> = new Set(),
): Promise<void> {
  if (advance.length) {
    await tx.query(
      `UPDATE schedule_entries se SET next_run_at = u.next
       FROM unnest($1::text[], $2::timestamptz[]) AS u(job_id, next)
       WHERE se.job_id = u.job_id`,
      [advance.map((a) => a.jobId), advance.map((a) => a.next)],
    );
  }
  if (exhausted.length) {
    await tx.query('DELETE FROM schedule_entries WHERE job_id = ANY($1::text[])', [exhausted]);
    await completeFinishedJobs(
      tx,
      exhausted.filter((id) => !open.has(id)),
    );
  }
}
