// Moves jobs to their next occurrence (jobs.next_run_at), and clears it for jobs whose
// schedule is exhausted (a one-off whose occurrence was just materialized, a schedule retired).
// Such a job is stored `completed` in that same update (a new row version anyway: next_run_at is
// a key of jobs_due_idx) and shown `active` while a scheduled run of it is open (jobStatusSql,
// open-runs.ts), so the run's ending writes nothing to the job and reads nothing of it. Before
// (until 2026-12-06), the ending of its last open run stored `completed` — a second row version
// of the wide job row after the due time (`status` is a key of the tenant's list index, so never
// a HOT update), ~15 % of a herd's time — and every completion probed its runs' jobs for it.
//
// So a job stored `active` always has a next occurrence (a deleted one aside): every writer of
// jobs keeps it so (job-insert.ts, job-changes.ts in @belfry/api, migration 20261206120000 for
// the rows of earlier versions).
import type { Queryable } from './types';

export async function advanceSchedule(
  tx: Queryable,
  advance: { jobId: string; next: Date }[],
  exhausted: string[],
): Promise<void> {
  if (!advance.length && !exhausted.length) return;
  // One statement: an exhausted schedule's next occurrence becomes NULL (out of the due index).
  await tx.query(
    `UPDATE jobs j SET next_run_at = u.next,
            status = CASE WHEN u.next IS NULL AND j.status = 'active' THEN 'completed'::job_status ELSE j.status END
     FROM unnest($1::text[], $2::timestamptz[]) AS u(id, next)
     WHERE j.id = u.id`,
    [
      [...advance.map((a) => a.jobId), ...exhausted],
      [...advance.map((a) => a.next), ...exhausted.map(() => null)],
    ],
  );
}
