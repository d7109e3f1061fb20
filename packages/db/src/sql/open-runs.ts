// The open runs (finished_at IS NULL: pending, running, or waiting for a retry) are listed in
// open_runs, one narrow row each keyed by (job_id, scheduled_time, run_id) (migration
// 20261202050000), so that no index of runs refers to finished_at and a completion is a HOT
// update. The statements that insert runs list the open ones; the statements that end runs
// unlist them. An engine's claim writes the run's lease into its row (leased_until, migration
// 20261206090000), where the reaper looks for expired ones; a run that goes back to waiting has
// it cleared (releaseLeases). Readers of a job's open runs go through open_runs and judge each run by its own
// row (finished_at IS NULL), so a row left behind (a process of the previous version, history
// trimmed by retention, a deleted run) is harmless; the reaper sweeps such rows out
// (sweepOpenRuns). A finished run is never reopened: a replay is a new run.
//
// Lease hints. The scheduler writes a run's row leased until the run's due time plus a hint (its
// nodes' run lease, less how early a run may be claimed and a second: NewScheduledRun's
// leaseHintMs; not for a pull queue's run, whose lease its claim keeps in running_runs), never
// later than the lease of a claim of it made by a node of that setting. A
// claim made before the hint passes, whose lease the hint does not outlast, leaves the row as it
// is (claim-runs.ts), so most runs' rows are written only when they are inserted and deleted.
// What the reaper relies on holds all the same: a row's leased_until is never later than its
// run's lease, so a run whose lease passed is among the rows whose leased_until has. The reaper
// probes those (selectExpiredRuns) and then, on its own, moves the hint of a run that is not
// expired to its lease (running) or clears it (waiting: its claim writes a lease then), judging
// each run by its newest row, locked (refreshLeaseHints) — as it now does for a lease since
// extended by heartbeats, which it used to probe at every pass.
import { FINISHED_RUN_STATUSES } from '@belfry/core';
import type { Queryable } from './types';

/**
 * SQL condition: run `r` (an alias of runs) is open and one of job `job`'s (an SQL expression: a
 * parameter, or a column of an outer query), found by the job's open_runs rows: their ids and
 * times reach the scan of runs as arrays, so the runs are probed by primary key in only the
 * partitions those times name, pruned when the statement runs. A join of open_runs to runs
 * instead was planned, with a few hundred open runs for the job, as a hash join over every
 * partition of runs read whole (80 ms for two jobs' next run, 25 ms for an overlap check,
 * PostgreSQL 18.4, 143,000 runs).
 */
export function openRunOf(r: string, job: string): string {
  return `${r}.id = ANY (ARRAY(SELECT l.run_id FROM open_runs l WHERE l.job_id = ${job}))
     AND ${r}.scheduled_time = ANY (ARRAY(SELECT l.scheduled_time FROM open_runs l WHERE l.job_id = ${job}))
     AND ${r}.finished_at IS NULL`;
}

/**
 * SQL condition: job `job` (an SQL expression, as for openRunOf) has a scheduled run still open
 * (pending, running or waiting for a retry; manual and replay runs are outside its schedule).
 * A job stored `completed` is shown `active` while this holds (jobStatusSql): the scheduler
 * stores a one-off `completed` when it materializes the occurrence (advanceSchedule), so that
 * the run's ending writes nothing to the job.
 */
export function scheduledRunOpen(job: string): string {
  return `EXISTS (SELECT 1 FROM runs r WHERE ${openRunOf('r', job)} AND r.trigger = 'schedule')`;
}

/**
 * SQL expression: the status of job `j` (an alias of jobs) as the API shows it — its stored
 * status, except that a job stored `completed` is `active` while a scheduled run of it is open
 * (contract: `completed` is "a one-off whose run has finished / schedule exhausted").
 */
export function jobStatusSql(j: string): string {
  return `CASE WHEN ${j}.status = 'completed' AND ${scheduledRunOpen(`${j}.id`)} THEN 'active'::job_status ELSE ${j}.status END`;
}

/**
 * SQL condition: open_runs row `o` is one of the runs of CTE `ended` (columns id, scheduled_time,
 * job_id) for which `which` (an SQL condition on `e`) holds. The job ids reach open_runs' primary
 * key as one array (an InitPlan): an index scan, even with nested loops off (withoutNestedLoops).
 */
function rowsOf(ended: string, which: string): string {
  return `o.job_id = ANY (ARRAY(SELECT e.job_id FROM ${ended} e WHERE ${which}))
       AND (o.job_id, o.scheduled_time, o.run_id) IN (SELECT e.job_id, e.scheduled_time, e.id FROM ${ended} e WHERE ${which})`;
}

/**
 * SQL statement (a data-modifying CTE of the ending statement): unlists the runs of CTE `ended`
 * (columns id, scheduled_time, job_id) for which `finished` (an SQL condition on `e`) holds.
 */
export function unlistEnded(ended: string, finished = 'true'): string {
  return `DELETE FROM open_runs o WHERE ${rowsOf(ended, finished)}`;
}

/**
 * SQL statement (a data-modifying CTE of the ending statement): clears the lease in the open_runs
 * rows of the runs of CTE `ended` for which `open` holds — a run going back to wait for a retry
 * or to be claimed again stays listed, leased by nobody, so the reaper no longer looks at it.
 */
export function releaseLeases(ended: string, open: string): string {
  return `UPDATE open_runs o SET leased_until = NULL WHERE ${rowsOf(ended, open)} AND o.leased_until IS NOT NULL`;
}

/** SQL: the run statuses that end a run (FINISHED_RUN_STATUSES; finished_at is set with them). */
export const FINISHED_STATUSES = `(${FINISHED_RUN_STATUSES.map((s) => `'${s}'`).join(', ')})`;

/**
 * Removes open_runs rows whose run has finished or no longer exists, at most `limit`. Answers
 * how many. A finished run never reopens, so no reader can still need such a row. The list is
 * read sequentially (narrow rows: a few milliseconds per 100,000), but only rows of runs
 * scheduled over 10 minutes ago are checked against their run: a backlog of open runs (a herd)
 * is recent and costs no probe of runs; a younger row left behind waits for a later sweep,
 * harmless meanwhile.
 */
export async function sweepOpenRuns(db: Queryable, limit: number): Promise<number> {
  const { rowCount } = await db.query(
    `DELETE FROM open_runs x
      WHERE (x.job_id, x.scheduled_time, x.run_id) IN (
        SELECT y.job_id, y.scheduled_time, y.run_id FROM open_runs y
         WHERE y.scheduled_time < now() - interval '10 minutes'
           AND NOT EXISTS (SELECT 1 FROM runs r
                            WHERE r.id = y.run_id AND r.scheduled_time = y.scheduled_time AND r.finished_at IS NULL)
         LIMIT $1)`,
    [limit],
  );
  return rowCount ?? 0;
}
