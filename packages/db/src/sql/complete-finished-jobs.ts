// A job whose schedule is exhausted (a one-off whose occurrence was materialized) stays
// `active` until that occurrence's run has finished — succeeded, dead, cancelled or skipped —
// and only then becomes `completed` (contract: "a one-off whose run has finished"). Every
// place that finishes scheduled runs, or retires a schedule entry, calls this with the jobs
// involved, inside its own transaction.
import type { Queryable } from './types';

/**
 * Marks `completed` those of `jobIds` that are active, have no schedule entry and no scheduled
 * run still open (pending, running or waiting for a retry). Manual and replay runs do not keep
 * a job active: they are outside its schedule. Answers the ids that changed.
 *
 * Two statements on purpose: the first locks the candidates (waiting for a concurrent change
 * such as a PATCH that gives the job a new schedule entry), the second looks again with a
 * fresh snapshot. One UPDATE would re-check a locked row's own columns but judge the
 * NOT EXISTS conditions by its old snapshot, and could complete a job that just got a new
 * schedule.
 *
 * OFFSET 0 keeps each NOT EXISTS a per-job probe (an index lookup by job_id) instead of an anti
 * join: with the statistics of a day's partition taken before a herd, the planner joined the
 * batch's jobs against every open run of the partition (12,000+ rows read per batch of 200).
 */
export async function completeFinishedJobs(tx: Queryable, jobIds: readonly string[]): Promise<string[]> {
  const ids = [...new Set(jobIds)];
  if (!ids.length) return [];
  const { rows: candidates } = await tx.query<{ id: string }>(
    `SELECT j.id FROM jobs j
      WHERE j.id = ANY($1::text[]) AND j.status = 'active'
        AND NOT EXISTS (SELECT 1 FROM schedule_entries e WHERE e.job_id = j.id OFFSET 0)
      ORDER BY j.id
      FOR NO KEY UPDATE OF j`,
    [ids],
  );
  if (!candidates.length) return [];
  const { rows } = await tx.query<{ id: string }>(
    `UPDATE jobs j SET status = 'completed', updated_at = now()
      WHERE j.id = ANY($1::text[]) AND j.status = 'active'
        AND NOT EXISTS (SELECT 1 FROM schedule_entries e WHERE e.job_id = j.id OFFSET 0)
        AND NOT EXISTS (SELECT 1 FROM runs r
                         WHERE r.job_id = j.id AND r.trigger = 'schedule'
                           AND r.status IN ('pending', 'running', 'failed') OFFSET 0)
      RETURNING j.id`,
    [candidates.map((c) => c.id)],
  );
  return rows.map((r) => r.id);
}
