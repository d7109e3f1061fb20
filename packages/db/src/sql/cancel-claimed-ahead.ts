// Runs claimed ahead of their time: a worker claims a scheduled run up to 500 ms before it is
// due (its scheduled time plus the job's jitter offset: due_at) and waits for that time before
// it calls the target. "Scheduled time" below means that due time. Such a run is `running`
// but has not started. Pause, delete and a schedule change cancel it, and it must then never
// be delivered; a run whose start is settled is left alone.
//
// A run's start is settled at its commit point, START_COMMIT_MS before it is due, and the two
// sides meet on the run's row and the database clock there:
//   - the canceller locks the candidate rows (FOR UPDATE), then, in a second statement, cancels
//     those whose commit point is still ahead of clock_timestamp();
//   - the worker, at the commit point, re-reads its runs FOR SHARE and keeps only those still
//     running under its lease and past their commit point by clock_timestamp()
//     (confirmRunStarts, below); it then waits out the rest on that answer's clock and calls
//     the target when due, with no database round trip left between the due time and the call.
// Whichever comes first wins, and the other sees it: a worker that confirmed before the
// canceller took its lock did so at a database time at or past the commit point, which the
// canceller's later clock check also sees (so it leaves the run running); a canceller that
// took its lock first makes the worker wait for its commit and then find the run cancelled.
// The NOTIFY on belfry_cancel makes the waiting worker drop the run at once — also a settled
// run in its last START_COMMIT_MS, which then never starts (cancelRun); a pause or delete in
// that window leaves it to start.
import { CANCEL_CHANNEL } from '../queue/names';
import { openRunOf, unlistEnded } from './open-runs';
import { distinctTimes, type Queryable } from './types';

/**
 * How long before its due time a run claimed ahead settles its start: from then on a pause,
 * delete or schedule change leaves it to run. The worker's start check happens then, off the
 * due instant, so a second's burst of runs is called on time instead of one database round
 * trip (and a row lock per run) later.
 */
export const START_COMMIT_MS = 100;

/** SQL: the run `alias`'s commit point (see START_COMMIT_MS). */
export const commitPointOf = (alias: string): string =>
  `(COALESCE(${alias}.due_at, ${alias}.scheduled_time) - interval '${START_COMMIT_MS} milliseconds')`;

/**
 * Cancels the job's scheduled runs that are claimed but not settled (running, their commit
 * point in the future); their attempts are recorded as cancelled and their workers told. `tx` must be
 * inside a transaction. Answers the cancelled run ids.
 */
export async function cancelClaimedAheadRuns(
  tx: Queryable,
  tenantId: string,
  jobId: string,
  finishedAt: Date,
): Promise<string[]> {
  const { rows: locked } = await tx.query<{ id: string; scheduled_time: Date }>(
    `SELECT r.id, r.scheduled_time FROM runs r
      WHERE ${openRunOf('r', '$1')} AND r.job_id = $1 AND r.tenant_id = $2 AND r.trigger = 'schedule'
        AND r.status = 'running'
        AND ${commitPointOf('r')} > clock_timestamp()
      ORDER BY r.id
      FOR UPDATE OF r`,
    [jobId, tenantId],
  );
  if (!locked.length) return [];
  const { rows } = await tx.query<{ id: string }>(
    `WITH cancelled AS (
       UPDATE runs r
          SET status = 'cancelled', finished_at = $3, next_attempt_at = NULL, lease_expires_at = NULL
         FROM unnest($1::text[], $2::timestamptz[]) AS m(id, scheduled_time)
        WHERE r.id = m.id AND r.scheduled_time = m.scheduled_time AND r.scheduled_time = ANY($5::timestamptz[])
          AND r.status = 'running' AND ${commitPointOf('r')} > clock_timestamp()
        RETURNING r.id, r.scheduled_time, r.tenant_id, r.job_id, r.attempt, r.worker_id, r.attempt_started_at,
                  r.started_at
     ), closed AS (
       INSERT INTO run_attempts (run_id, scheduled_time, tenant_id, job_id, attempt, worker_id, status, started_at,
                                 finished_at, error)
       SELECT c.id, c.scheduled_time, c.tenant_id, c.job_id, c.attempt, c.worker_id, 'cancelled',
              -- a run claimed ahead starts when due (claim-runs.ts): never after it finished
              LEAST(COALESCE(c.attempt_started_at, c.started_at, $3), $3), $3, 'cancelled before it started'
         FROM cancelled c
       -- a 'running' row left by the previous version (complete-runs.ts): closed
       ON CONFLICT (run_id, scheduled_time, attempt) DO UPDATE
          SET status = EXCLUDED.status, finished_at = EXCLUDED.finished_at, error = EXCLUDED.error,
              started_at = LEAST(run_attempts.started_at, EXCLUDED.finished_at)
        WHERE run_attempts.status = 'running'
     ), unlisted AS (
       DELETE FROM running_runs x USING cancelled c
        WHERE x.run_id = ANY($1::text[]) AND x.run_id = c.id AND x.scheduled_time = c.scheduled_time
     ), ended AS (
       ${unlistEnded('cancelled')}
     )
     SELECT c.id, pg_notify($4, c.id)::text AS notified FROM cancelled c`,
    [
      locked.map((r) => r.id),
      locked.map((r) => r.scheduled_time),
      finishedAt,
      CANCEL_CHANNEL,
      distinctTimes(locked.map((r) => r.scheduled_time)),
    ],
  );
  return rows.map((r) => r.id);
}

export interface HeldRun {
  id: string;
  scheduledTime: Date;
  attempt: number;
}

export interface StartCheck {
  /** runs still held by this worker, and whether each is past its commit point by the database clock */
  held: Map<string, { committed: boolean }>;
  /** the database clock when it answered (epoch ms) */
  dbNowMs: number;
}

/**
 * The worker's side: of `runs`, which does this worker still hold (running, its attempt),
 * and is each one past its commit point (then no pause or delete takes it any more: it is the
 * worker's to call when due)? A run missing from `held` was cancelled or taken back: its target
 * must not be called. FOR SHARE waits for a canceller that holds the row (see above).
 */
export async function confirmRunStarts(db: Queryable, workerId: string, runs: HeldRun[]): Promise<StartCheck> {
  // No join to the batch: the runs are found by primary key (r.id = ANY, the times pruning the
  // partitions) and each one's attempt is compared here. A join to an unnest of the batch was
  // planned, on a day's partition whose statistics predate its runs, as a nested loop reading
  // the whole batch once per run — a million comparisons for the 1,000 starts of a busy second,
  // on the path of every one of them.
  const { rows } = await db.query<{
    id: string | null;
    attempt: number | null;
    committed: boolean | null;
    db_ms: number;
  }>(
    `WITH held AS (
       SELECT r.id, r.attempt, ${commitPointOf('r')} <= clock_timestamp() AS committed
         FROM runs r
        WHERE r.id = ANY($2::text[]) AND r.scheduled_time = ANY($3::timestamptz[])
          AND r.worker_id = $1 AND r.status = 'running'
        -- locked in key order, as the heartbeat locks the same runs (extend-run-leases.ts): in
        -- the order of whichever scan each got, the two deadlocked, and each deadlock held both
        -- for deadlock_timeout (1 s) before one failed (bench knee, 2,250/s: 773 runs not started)
        ORDER BY r.id, r.scheduled_time
        FOR SHARE OF r
     )
     SELECT h.id, h.attempt, h.committed, (extract(epoch FROM clock_timestamp()) * 1000)::float8 AS db_ms
       FROM (SELECT 1) one LEFT JOIN held h ON true`,
    [workerId, runs.map((r) => r.id), distinctTimes(runs.map((r) => r.scheduledTime))],
  );
  const attempts = new Map(runs.map((r) => [r.id, r.attempt]));
  const held = new Map<string, { committed: boolean }>();
  for (const r of rows)
    if (r.id && attempts.get(r.id) === r.attempt) held.set(r.id, { committed: Boolean(r.committed) });
  return { held, dbNowMs: Number(rows[0]?.db_ms ?? Date.now()) };
}
