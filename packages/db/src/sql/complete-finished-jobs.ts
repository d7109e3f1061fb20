// A job whose schedule is exhausted (a one-off whose occurrence was materialized) stays
// `active` until that occurrence's run has finished — succeeded, dead, cancelled or skipped —
// and only then becomes `completed` (contract: "a one-off whose run has finished"), never while
// a scheduled run of it is still open, even one of a schedule it had before a PATCH. Every
// place that finishes scheduled runs, or clears a job's next occurrence, calls this with the jobs
// involved, inside its own transaction.
//
// The common case no longer reaches the UPDATE: the scheduler stores a one-off `completed` when it
// materializes the occurrence (advanceSchedule), and the API shows it `active` while that run is
// open (jobStatusSql, open-runs.ts), so its completion finds no active candidate and writes
// nothing. What this still completes: jobs stored `active` without a next occurrence — a one-off
// rescheduled or resumed while a run of it was open (job-changes.ts), and rows from before that.
import type { Queryable } from './types';

/**
 * Marks `completed` those of `jobIds` that are active, have no next occurrence (next_run_at)
 * and no scheduled run still open (pending, running or waiting for a retry). Manual and replay runs do not keep
 * a job active: they are outside its schedule. Answers the ids that changed.
 *
 * Two statements on purpose, run by the function belfry_complete_finished_jobs (migrations
 * 20261201022000, 20261202030000, 20261202050000) in one round trip: the first locks the candidates (waiting for a concurrent
 * change such as a PATCH that gives the job a new next occurrence), the second looks again with
 * a fresh snapshot. One UPDATE would re-check a locked row's own columns but judge the
 * NOT EXISTS conditions by its old snapshot, and could complete a job that just got a new
 * schedule. In a function, PL/pgSQL keeps the statements' plans per connection: the open-run
 * check spans every partition of `runs`, and planning it on each call cost more than running it.
 *
 * In the function, OFFSET 0 keeps each NOT EXISTS a per-job probe (the job's occurrence by
 * runs_job_occurrence_key, or its open runs' ids and times from open_runs, each run then probed
 * by primary key) instead of an anti join: with the statistics of a day's partition taken before a herd, the planner joined the
 * batch's jobs against every open run of the partition (12,000+ rows read per batch of 200).
 *
 * The open-run check of a one-off whose schedule never changed (version 1) looks only at its
 * occurrence at run_at — one partition, pruned at run time (migration 20261201120200) — since
 * all its scheduled runs are there. Any other job (a one-off rescheduled, or paused and resumed,
 * may still have an open run of its earlier schedule; a recurring job whose schedule ended) is
 * checked over all its open runs, listed in open_runs (open-runs.ts). So every change of a job's schedule must bump `version`
 * (packages/api/src/services/job-changes.ts does, on every change).
 */
export async function completeFinishedJobs(tx: Queryable, jobIds: readonly string[]): Promise<string[]> {
  const ids = [...new Set(jobIds)];
  if (!ids.length) return [];
  const { rows } = await tx.query<{ id: string }>('SELECT belfry_complete_finished_jobs($1::text[]) AS id', [ids]);
  return rows.map((r) => r.id);
}
