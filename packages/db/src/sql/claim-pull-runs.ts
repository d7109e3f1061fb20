// A tenant's worker claims the runs of the pull-queue messages it fetched: pending (or
// retry-waiting) runs become running under the worker's lease — leaseMs, but never past the
// job's timeoutSeconds from the claim — attempt + 1, the attempt in progress held on the run
// row (worker, attempt_started_at; its run_attempts row is written when it ends). Runs in any other state (cancelled, finished, claimed elsewhere) are not returned.
// Also here: the routing check before a claim, and the upsert that records which worker
// asked (the dashboard's "workers seen").
//
// The runs are matched by (id, scheduled_time) pairs; `scheduled_time = ANY(times)` prunes
// partitions, and `id = ANY(ids)` — redundant for the result — lets the planner see that few
// rows match: in a herd every run has the same scheduled time, and without it the planner
// judged the time filter unselective and scanned the whole partition on every claim. The
// times array holds each time once (distinctTimes, types.ts).
import type { Priority, RunTrigger } from '@belfry/core';
import { distinctTimes, type Queryable } from './types';

export interface ClaimedPullRun {
  id: string;
  scheduled_time: Date;
  tenant_id: string;
  job_id: string;
  status: 'running';
  skip_reason: null;
  attempt: number;
  trigger: RunTrigger;
  replay_of: string | null;
  priority: Priority;
  created_at: Date;
  /** the run's first attempt's start */
  started_at: Date;
  /** this attempt's start (the claim's time) */
  attempt_started_at: Date;
  finished_at: null;
  lease_expires_at: Date;
  /** when the run was due: its scheduled time plus the job's jitter */
  due_at: Date;
  payload: unknown;
}

export async function claimPullRuns(
  tx: Queryable,
  worker: string,
  leaseMs: number,
  ids: string[],
  times: Date[],
): Promise<ClaimedPullRun[]> {
  if (!ids.length) return [];
  const { rows } = await tx.query<ClaimedPullRun>(
    `WITH claimed AS (
       UPDATE runs r
       SET status = 'running', attempt = r.attempt + 1, worker_id = $1,
           lease_expires_at = now() + make_interval(secs => LEAST($2::float8 / 1000, j.timeout_seconds)),
           started_at = COALESCE(r.started_at, now()), attempt_started_at = now()
       FROM unnest($3::text[], $4::timestamptz[]) AS m(id, scheduled_time), jobs j
       WHERE r.id = m.id AND r.scheduled_time = m.scheduled_time
         AND r.id = ANY($3::text[]) AND r.scheduled_time = ANY($5::timestamptz[])
         AND j.id = r.job_id
         AND (r.status = 'pending' OR (r.status = 'failed' AND r.next_attempt_at <= now() + interval '1 second'))
       RETURNING r.id, r.scheduled_time, r.tenant_id, r.job_id, r.status, r.skip_reason, r.attempt, r.trigger,
                 r.replay_of, r.priority, r.created_at, r.started_at, r.finished_at, r.lease_expires_at,
                 r.attempt_started_at,
                 COALESCE(r.due_at, r.scheduled_time) AS due_at, j.payload
     ), listed AS (
       -- where the reaper finds running runs, with their lease (claim-runs.ts)
       INSERT INTO running_runs (run_id, scheduled_time, leased_until)
       SELECT id, scheduled_time, lease_expires_at FROM claimed
       ON CONFLICT (run_id, scheduled_time) DO UPDATE SET leased_until = EXCLUDED.leased_until
     )
     SELECT * FROM claimed ORDER BY scheduled_time, id`,
    [worker, leaseMs, ids, times, distinctTimes(times)],
  );
  return rows;
}

export interface RunRoute {
  id: string;
  scheduled_time: Date;
  tenant_id: string;
  priority: Priority;
  target_type: string;
  target_queue: string | null;
}

/** Where the jobs of these runs route now (a job's target may have changed since it was queued). */
export async function selectRunRoutes(tx: Queryable, ids: string[], times: Date[]): Promise<RunRoute[]> {
  if (!ids.length) return [];
  const { rows } = await tx.query<RunRoute>(
    `SELECT r.id, r.scheduled_time, r.tenant_id, r.priority, j.target->>'type' AS target_type,
            j.target->>'queue' AS target_queue
       FROM runs r JOIN unnest($1::text[], $2::timestamptz[]) AS m(id, scheduled_time)
         ON r.id = m.id AND r.scheduled_time = m.scheduled_time
       JOIN jobs j ON j.id = r.job_id
      WHERE r.id = ANY($1::text[]) AND r.scheduled_time = ANY($3::timestamptz[])`,
    [ids, times, distinctTimes(times)],
  );
  return rows;
}

/** Records that `worker` asked `queue` for runs (and got some, when `claimed`). */
export async function recordPullWorker(
  db: Queryable,
  tenantId: string,
  queue: string,
  worker: string,
  claimed: boolean,
): Promise<void> {
  await db.query(
    `INSERT INTO pull_workers (tenant_id, queue, worker, last_claim_at)
     VALUES ($1, $2, $3, CASE WHEN $4::boolean THEN now() END)
     ON CONFLICT (tenant_id, queue, worker) DO UPDATE
       SET last_seen_at = now(),
           last_claim_at = CASE WHEN $4::boolean THEN now() ELSE pull_workers.last_claim_at END`,
    [tenantId, queue, worker, claimed],
  );
}
