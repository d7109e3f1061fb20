// Moves jobs to their next occurrence (jobs.next_run_at), and clears it for jobs whose
// schedule is exhausted (a one-off whose occurrence was just materialized). Such a job is
// stored `completed` in that same update when a run of its schedule was just queued: it is shown
// `active` while a scheduled run of it is open (jobStatusSql, open-runs.ts), so the run's ending
// writes nothing to the job — before, the completion's check made a second row version of the
// job (`status` is a key of the tenant's list index, so never a HOT update) after the due
// time, ~15 % of a herd's time. Any other exhausted job is looked at by completeFinishedJobs.
import { completeFinishedJobs } from './complete-finished-jobs';
import type { Queryable } from './types';

/**
 * `open`: jobs known to have a scheduled run still open (one just materialized in the same
 * transaction); an exhausted one among them is stored `completed` at once, the others are
 * checked by completeFinishedJobs.
 */
export async function advanceSchedule(
  tx: Queryable,
  advance: { jobId: string; next: Date }[],
  exhausted: string[],
  open: ReadonlySet<string> = new Set(),
): Promise<void> {
  if (!advance.length && !exhausted.length) return;
  // One statement: an exhausted schedule's next occurrence becomes NULL (out of the due index),
  // a new row version anyway (next_run_at is a key of jobs_due_idx), so the status it may
  // change with it costs no extra write.
  await tx.query(
    `UPDATE jobs j SET next_run_at = u.next,
            status = CASE WHEN u.completes AND j.status = 'active' THEN 'completed'::job_status ELSE j.status END
     FROM unnest($1::text[], $2::timestamptz[], $3::boolean[]) AS u(id, next, completes)
     WHERE j.id = u.id`,
    [
      [...advance.map((a) => a.jobId), ...exhausted],
      [...advance.map((a) => a.next), ...exhausted.map(() => null)],
      [...advance.map(() => false), ...exhausted.map((id) => open.has(id))],
    ],
  );
  const unknown = exhausted.filter((id) => !open.has(id));
  if (unknown.length) await completeFinishedJobs(tx, unknown);
}
