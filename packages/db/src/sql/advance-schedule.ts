// Moves jobs to their next occurrence (jobs.next_run_at), and clears it for jobs whose
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
  if (!advance.length && !exhausted.length) return;
  // One statement: an exhausted schedule's next occurrence becomes NULL (out of the due index).
  await tx.query(
    `UPDATE jobs j SET next_run_at = u.next
     FROM unnest($1::text[], $2::timestamptz[]) AS u(id, next)
     WHERE j.id = u.id`,
    [
      [...advance.map((a) => a.jobId), ...exhausted],
      [...advance.map((a) => a.next), ...exhausted.map(() => null)],
    ],
  );
  if (exhausted.length) {
    await completeFinishedJobs(
      tx,
      exhausted.filter((id) => !open.has(id)),
    );
  }
}
