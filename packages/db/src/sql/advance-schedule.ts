// Moves schedule entries to their next occurrence, and retires the entries of jobs whose
// schedule is exhausted (a one-off that ran): the job becomes 'completed'.
import type { Queryable } from './types';

export async function advanceSchedule(
  tx: Queryable,
  advance: { jobId: string; next: Date }[],
  exhausted: string[],
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
    await tx.query(
      `UPDATE jobs SET status = 'completed', updated_at = now() WHERE id = ANY($1::text[]) AND status = 'active'`,
      [exhausted],
    );
  }
}
