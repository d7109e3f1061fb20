// Fenced completion of attempts, batched: an outcome is recorded only while the worker still
// holds the run (same attempt, same worker, status running). A lease that merely expired —
// the database was away while the outcome waited to be written — still holds until the reaper
// takes the run (the row lock orders the two): the outcome is true, and recording it avoids
// running the target again. A worker whose run was reaped or cancelled gets nothing back and
// must not act on the outcome.
//
// The ended attempt is written here, once: the claim left the attempt in progress on the run row
// (attempt, worker_id, attempt_started_at), and the same statement that fences the run records
// its outcome. An attempt that ends the run (succeeded, dead, cancelled) stays on the run row, its
// outcome written by the fencing update itself (migration 20261207060000; readers go through
// run_attempt_history); an attempt after which the run goes on (a retry, a run given back) gets
// its run_attempts row, since the run's next claim takes the row's attempt columns over. The
// primary key (run, scheduled time, attempt) still refuses a second row for one attempt; two
// enders (a completion and the reaper) never both get that far, since only one of them moves the
// run out of 'running'. An ender that writes a row closes instead a 'running' row left by a
// process of a version before migration 20261201120400 (ON CONFLICT): without it, one such row
// would fail the whole batch with a duplicate key, again at every retry. One whose attempt stays
// on the run row leaves such a row as it is: run_attempt_history shows the run's outcome instead.
import type { AttemptStatus, Priority, RunStatus } from '@belfry/core';
import { FINISHED_STATUSES, releaseLeases, unlistEnded } from './open-runs';
import { updateOfRuns } from './runs-partitions';
import { recordAlertOutcomes } from './record-alert-outcomes';
import { distinctTimes, type Queryable, withoutNestedLoops } from './types';

export interface AttemptOutcome {
  runId: string;
  scheduledTime: Date;
  attempt: number;
  /** the run's new status */
  runStatus: Extract<RunStatus, 'succeeded' | 'failed' | 'dead' | 'cancelled' | 'pending'>;
  /** the attempt row's status */
  attemptStatus: Exclude<AttemptStatus, 'running'>;
  nextAttemptAt: Date | null;
  httpStatus: number | null;
  durationMs: number;
  error: string | null;
  responseSnippet: string | null;
  requestHeaders: Record<string, string> | null;
  /** a container's exit code */
  exitCode?: number | null;
}

export interface CompletedRun {
  id: string;
  tenant_id: string;
  job_id: string;
  priority: Priority;
  scheduled_time: Date;
  status: AttemptOutcome['runStatus'];
}

export async function completeAttempts(
  tx: Queryable,
  workerId: string,
  given: AttemptOutcome[],
): Promise<CompletedRun[]> {
  // One outcome per run (the first): a run twice in a batch would write its attempt's row twice.
  const seen = new Set<string>();
  const outcomes = given.filter((o) => {
    const key = `${o.runId}/${o.scheduledTime.getTime()}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  if (!outcomes.length) return [];
  // It updates the day's partition of runs the batch lives in, where it can (runs-partitions.ts).
  // Every join here is between the batch and rows found by key (withoutNestedLoops).
  const rows = await withoutNestedLoops(tx, () =>
    complete(
      tx,
      outcomes.map((o) => o.scheduledTime),
      [
        workerId,
        outcomes.map((o) => o.runId),
        outcomes.map((o) => o.scheduledTime),
        outcomes.map((o) => o.attempt),
        outcomes.map((o) => o.runStatus),
        outcomes.map((o) => o.attemptStatus),
        outcomes.map((o) => o.nextAttemptAt),
        outcomes.map((o) => o.httpStatus),
        outcomes.map((o) => o.durationMs),
        outcomes.map((o) => o.error),
        outcomes.map((o) => o.responseSnippet),
        outcomes.map((o) => (o.requestHeaders ? JSON.stringify(o.requestHeaders) : null)),
        outcomes.map((o) => o.exitCode ?? null),
        distinctTimes(outcomes.map((o) => o.scheduledTime)),
      ],
    ),
  );
  // Nothing is written to the runs' jobs: a one-off is stored completed when its run is
  // materialized and shown so once that run has ended (advance-schedule.ts, jobStatusSql).
  // Incidents open and resolve with the outcomes that cause them (in the caller's order).
  const order = new Map(outcomes.map((o, i) => [o.runId, i]));
  await recordAlertOutcomes(
    tx,
    [...rows]
      .sort((a, b) => (order.get(a.id) ?? 0) - (order.get(b.id) ?? 0))
      .map((r) => ({ runId: r.id, tenantId: r.tenant_id, jobId: r.job_id, status: r.status })),
  );
  return rows;
}

const COMPLETE_SQL = `WITH given AS (
       SELECT * FROM unnest($2::text[], $3::timestamptz[], $4::int[], $5::text[], $6::text[], $7::timestamptz[],
                            $8::int[], $9::int[], $10::text[], $11::text[], $12::jsonb[], $13::int[])
         AS g(run_id, scheduled_time, attempt, run_status, attempt_status, next_attempt_at,
              http_status, duration_ms, error, response_snippet, request_headers, exit_code)
     ), o AS (
       SELECT *, run_status IN ${FINISHED_STATUSES} AS ends FROM given
     ), done AS (
       -- An attempt that ends the run stays on its row. Not an attempt claimed by a
       -- version before migration 20261201120400 (no attempt_started_at): its 'running' row is
       -- closed below instead, its start kept.
       UPDATE runs r
       SET status = o.run_status,
           finished_at = CASE WHEN o.ends THEN now() END,
           dead_at = CASE WHEN o.run_status = 'dead' THEN now() END,
           next_attempt_at = o.next_attempt_at,
           lease_expires_at = NULL,
           last_error = o.error,
           -- an attempt that ends the run is recorded here, not as a run_attempts row (below)
           attempt_status = CASE WHEN o.ends AND r.attempt_started_at IS NOT NULL THEN o.attempt_status END,
           http_status = CASE WHEN o.ends AND r.attempt_started_at IS NOT NULL THEN o.http_status END,
           duration_ms = CASE WHEN o.ends AND r.attempt_started_at IS NOT NULL THEN o.duration_ms END,
           response_snippet = CASE WHEN o.ends AND r.attempt_started_at IS NOT NULL THEN o.response_snippet END,
           request_headers = CASE WHEN o.ends AND r.attempt_started_at IS NOT NULL THEN o.request_headers END,
           exit_code = CASE WHEN o.ends AND r.attempt_started_at IS NOT NULL THEN o.exit_code END
       FROM o
       WHERE r.id = o.run_id AND r.scheduled_time = o.scheduled_time AND r.scheduled_time = ANY($14::timestamptz[])
         -- r.id = ANY: the runs are found by primary key. Without it the planner, trusting
         -- statistics of the day's partition taken before a herd (about one row at this time),
         -- read the whole partition sequentially and joined it to the batch by nested loop —
         -- 20,000 rows per batch (auto_explain, 20,000-run quick herd).
         AND r.id = ANY($2::text[])
         AND r.attempt = o.attempt
         -- IS NOT DISTINCT FROM (status is never null): the same fence as = 'running', which the
         -- planner cannot match to a partial index. With = it read every running run of the
         -- partition through the lease index runs had until migration 20261202000000 (and, in a
         -- herd, every entry not yet vacuumed: thousands) and joined them to the batch by nested
         -- loop, per batch.
         AND r.worker_id = $1 AND r.status IS NOT DISTINCT FROM 'running'
       RETURNING r.id, r.tenant_id, r.job_id, r.priority, r.scheduled_time, r.status, r.attempt, r.worker_id,
                 r.attempt_started_at, r.started_at, r.attempt_status
     ), attempts AS (
       INSERT INTO run_attempts (run_id, scheduled_time, tenant_id, job_id, attempt, worker_id, status, started_at,
                                 finished_at, http_status, duration_ms, error, response_snippet, request_headers, exit_code)
       SELECT d.id, d.scheduled_time, d.tenant_id, d.job_id, d.attempt, d.worker_id, o.attempt_status,
              COALESCE(d.attempt_started_at, d.started_at, now()), now(), o.http_status, o.duration_ms, o.error,
              o.response_snippet, o.request_headers, o.exit_code
       FROM o JOIN done d ON d.id = o.run_id AND d.scheduled_time = o.scheduled_time AND d.attempt = o.attempt
       -- only an attempt the update above did not keep on the run row: one after which the run
       -- goes on (a retry, a run given back; the next claim takes over the row's attempt
       -- columns), or one of an old claim
       WHERE d.attempt_status IS NULL
       -- a 'running' row left by a process of the version that opened attempts at their claim
       -- (upgrade, rollback): this attempt's row, closed with its outcome, its start kept
       ON CONFLICT (run_id, scheduled_time, attempt) DO UPDATE
          SET worker_id = EXCLUDED.worker_id, status = EXCLUDED.status, finished_at = EXCLUDED.finished_at,
              http_status = EXCLUDED.http_status, duration_ms = EXCLUDED.duration_ms, error = EXCLUDED.error,
              response_snippet = EXCLUDED.response_snippet, request_headers = EXCLUDED.request_headers,
              exit_code = EXCLUDED.exit_code
        WHERE run_attempts.status = 'running'
     ), closed AS (
       -- finished: no longer open (open-runs.ts), its lease gone with the row
       ${unlistEnded('done', `e.status IN ${FINISHED_STATUSES}`)}
     ), released AS (
       -- a retry (or a run given back) stays listed, its lease cleared
       ${releaseLeases('done', `e.status NOT IN ${FINISHED_STATUSES}`)}
     )
     SELECT id, tenant_id, job_id, priority, scheduled_time, status FROM done`;

const complete = updateOfRuns<CompletedRun>('belfry_complete_attempts', COMPLETE_SQL);
