// A worker claims the runs of the messages it fetched: pending (or retry-waiting) runs become
// running under this worker's lease, attempt + 1 (the attempt in progress lives on the run row:
// its run_attempts row is written when it ends, see complete-runs.ts); overlap-skip
// jobs whose previous run is still running are recorded as skipped instead. Runs in any
// other state (cancelled, finished, claimed elsewhere) are simply not returned.
import type { Priority, RunTrigger } from '@belfry/core';
import { openRunOf, unlistEnded } from './open-runs';
import { updateOfRuns } from './runs-partitions';
import { distinctTimes, type Queryable } from './types';

export interface ClaimedRun {
  id: string;
  scheduled_time: Date;
  /** when the run may start: its scheduled time plus the job's jitter offset */
  due_at: Date;
  tenant_id: string;
  job_id: string;
  attempt: number;
  trigger: RunTrigger;
  priority: Priority;
  next_attempt_at: Date | null;
  /** write-only fields masked as '***'; the worker reveals them from target_secrets just before delivery */
  target: { type: string; [key: string]: unknown };
  /** the target's write-only fields, sealed (null: none, or a job written before sealing) */
  target_secrets?: Buffer | null;
  payload: unknown;
  timeout_seconds: number;
  retry_max_attempts: number;
  retry_initial_delay_seconds: number;
  retry_max_delay_seconds: number;
  db_now: Date;
}

export async function skipOverlappingRuns(tx: Queryable, ids: string[], times: Date[]): Promise<string[]> {
  if (!ids.length) return [];
  const parts = distinctTimes(times);
  // Claimers of the same overlap-skip job take turns (row lock on the job until commit), so a
  // run another worker is claiming right now is seen as running by the next statement.
  await tx.query(
    `SELECT j.id FROM jobs j
     WHERE j.overlap_policy = 'skip' AND j.id IN (
       SELECT r.job_id FROM runs r JOIN unnest($1::text[], $2::timestamptz[]) AS m(id, scheduled_time)
         ON r.id = m.id AND r.scheduled_time = m.scheduled_time
         WHERE r.id = ANY($1::text[]) AND r.scheduled_time = ANY($3::timestamptz[]))
     ORDER BY j.id
     FOR NO KEY UPDATE OF j`,
    [ids, times, parts],
  );
  // Skipped: a pending scheduled run of an overlap-skip job whose job has a run in progress,
  // or an earlier claimable run of the same job in this very batch (a backlog fetched at once).
  const { rows } = await tx.query<{ id: string; job_id: string }>(
    `WITH batch AS (
       SELECT r.id, r.scheduled_time, r.job_id, r.status, r.trigger, r.next_attempt_at
       FROM runs r JOIN unnest($1::text[], $2::timestamptz[]) AS m(id, scheduled_time)
         ON r.id = m.id AND r.scheduled_time = m.scheduled_time
       -- r.id = ANY: found by primary key whatever the partition's statistics (see claimRuns)
       WHERE r.id = ANY($1::text[]) AND r.scheduled_time = ANY($3::timestamptz[])
     ), skipped AS (
       UPDATE runs r SET status = 'skipped', skip_reason = 'overlap', finished_at = now()
       FROM batch b, jobs j
       WHERE r.id = b.id AND r.scheduled_time = b.scheduled_time AND r.scheduled_time = ANY($3::timestamptz[])
         AND b.status = 'pending' AND b.trigger = 'schedule'
         AND j.id = b.job_id AND j.overlap_policy = 'skip'
         AND (
           -- the job's open runs are listed in open_runs (open-runs.ts)
           EXISTS (SELECT 1 FROM runs o WHERE ${openRunOf('o', 'b.job_id')} AND o.status = 'running' AND o.id <> b.id)
           OR EXISTS (
             SELECT 1 FROM batch e
             WHERE e.job_id = b.job_id AND (e.scheduled_time, e.id) < (b.scheduled_time, b.id)
               AND (e.status = 'pending' OR (e.status = 'failed' AND e.next_attempt_at <= now() + interval '1 second'))
           )
         )
       RETURNING r.id, r.job_id, r.scheduled_time
     ), ended AS (
       ${unlistEnded('skipped')}
     )
     SELECT id, job_id FROM skipped`,
    [ids, times, parts],
  );
  // A skipped occurrence finishes its run: a one-off skipped this way is shown completed (stored
  // so when the run was materialized, advance-schedule.ts): nothing to write to the job.
  return rows.map((r) => r.id);
}

export async function claimRuns(
  tx: Queryable,
  workerId: string,
  leaseMs: number,
  ids: string[],
  times: Date[],
): Promise<ClaimedRun[]> {
  if (!ids.length) return [];
  // The runs are found by `r.id = ANY($3)` on the primary key, and by nothing else: in a herd
  // the day's partition was last analyzed before its runs existed, the planner expected about
  // one row of it at the batch's scheduled time, and read the whole partition
  // (every pending run, through runs_open_idx or sequentially) in a nested loop against the
  // batch — 20,000 rows × 50 per claim, most of PostgreSQL's CPU in a 20,000-run herd. An id
  // list on a unique key is estimated right whatever the statistics say; a run id names one run,
  // so the list alone picks them (a join to an unnest of the batch, besides, was planned as a
  // nested loop reading the batch once per run: see withoutNestedLoops). The status tests use
  // IS NOT DISTINCT FROM (status is never null) so that no partial index even qualifies.
  //
  // No index of runs refers to a column the claim changes, so the claim is a HOT update (the new
  // row version on the same page, no index entries). The reaper finds the running run by the
  // lease written into its open_runs row (migration 20261206090000): a column of no index, on
  // half-filled pages, so a HOT update too, and the row is deleted when the run finishes anyway;
  // a run materialized with a lease hint there that stands for this lease is not written at all.
  // Until then running_runs took an insert here and a delete at the completion (~7 % of a 100K
  // herd's time, bench/results/README, stop 39).
  //
  // It updates the day's partition of runs the batch lives in, where it can (runs-partitions.ts).
  return claim(tx, times, [workerId, leaseMs, ids, distinctTimes(times)]);
}

const CLAIM_SQL = `WITH claimed AS (
       UPDATE runs r
       SET status = 'running', attempt = r.attempt + 1, worker_id = $1,
           lease_expires_at = now() + make_interval(secs => $2::float8 / 1000),
           -- a run claimed ahead of its time starts when it is due (the worker waits)
           attempt_started_at = GREATEST(now(), COALESCE(r.due_at, r.scheduled_time)),
           started_at = COALESCE(r.started_at, GREATEST(now(), COALESCE(r.due_at, r.scheduled_time)))
       WHERE r.id = ANY($3::text[]) AND r.scheduled_time = ANY($4::timestamptz[])
         AND (r.status IS NOT DISTINCT FROM 'pending'
              OR (r.status IS NOT DISTINCT FROM 'failed' AND r.next_attempt_at <= now() + interval '1 second'))
       RETURNING r.id, r.scheduled_time, COALESCE(r.due_at, r.scheduled_time) AS due_at, r.tenant_id, r.job_id,
                 r.attempt, r.trigger, r.priority, r.next_attempt_at
     ), leased AS (
       -- the reaper finds running runs by this lease (the same now(): one transaction); every
       -- open run has its row (open-runs.ts), but a run without one must still be found, so the
       -- row is written either way (an upsert: the update of an existing row, HOT). Not where
       -- the row holds a lease hint (written when the run was materialized) that has not passed
       -- and does not outlast this lease: the reaper looks at the run no later than it would at
       -- this lease, and moves a passed hint of a live run to the run's lease itself
       -- (open-runs.ts, "lease hints"). The row is then only locked, not written again: in a
       -- 100K herd a fifth less WAL for the claims (pg_stat_statements; bench/results/README,
       -- stop 48). Read first instead (a LATERAL probe per run, no lock) it wrote less still but cost
       -- more planning than it saved.
       INSERT INTO open_runs (job_id, scheduled_time, run_id, leased_until)
       SELECT job_id, scheduled_time, id, now() + make_interval(secs => $2::float8 / 1000) FROM claimed
       ON CONFLICT (job_id, scheduled_time, run_id) DO UPDATE SET leased_until = EXCLUDED.leased_until
        WHERE open_runs.leased_until IS NULL OR open_runs.leased_until <= now()
           OR open_runs.leased_until > EXCLUDED.leased_until
     )
     SELECT c.*, j.target, j.target_secrets, j.payload, j.timeout_seconds, j.retry_max_attempts, j.retry_initial_delay_seconds,
            j.retry_max_delay_seconds, now() AS db_now
     FROM claimed c JOIN jobs j ON j.id = c.job_id`;

const claim = updateOfRuns<ClaimedRun>('belfry_claim_runs', CLAIM_SQL);
