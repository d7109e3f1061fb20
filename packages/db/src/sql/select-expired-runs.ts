// The reaper's first step: running runs whose lease expired (their worker died or stopped
// heartbeating), locked, with what deciding their retry takes. Row locks with SKIP LOCKED let
// every node reap without two taking the same run. A container run is different: its container
// may outlive the node, and the run must not start again while it lives. It is returned only
// when the caller shares the dead node's Docker Engine (and can look for the container itself),
// or once it has been expired longer than its timeout plus `containerHoldSeconds` — by then a
// node on that engine would have adopted it (see adopt-container-runs.ts).
//
// Running runs are found by the lease their claim gave them, kept outside runs (no index of runs
// refers to the lease, so claims and renewals stay HOT updates): an engine's claim writes it into
// the run's open_runs row (migration 20261206090000), a pull worker's claim lists the run in
// running_runs (as engines of an earlier version did; migration 20261202000000). A lease only
// ever moves later, so only the rows whose lease has passed (or, in running_runs, that have none:
// an earlier version's) can name an expired run: those runs are probed by primary key and judged
// by their own status and lease. open_runs is read sequentially (narrow rows: a few
// milliseconds per 100,000 in a herd, as sweepOpenRuns reads it); its lease is in no index, which
// keeps the claim's write there a HOT update. Joined to the list instead, the scan was planned
// against a day's partition analyzed before a herd filled it as a hash join that read the
// partition whole, every pass (~40 ms in a 100K herd, for nothing).
import type { Priority } from '@belfry/core';
import { distinctTimes, type Queryable } from './types';

export interface ExpiredRun {
  id: string;
  scheduled_time: Date;
  tenant_id: string;
  job_id: string;
  priority: Priority;
  attempt: number;
  worker_id: string | null;
  retry_max_attempts: number;
  retry_initial_delay_seconds: number;
  retry_max_delay_seconds: number;
  /** the target's routing fields, for the retry's queue */
  target_type: string;
  target_queue: string | null;
  /** container runs: the Docker Engine of the node that ran it, as that node last reported */
  worker_docker_engine: string | null;
  db_now: Date;
}

export interface ExpiredRunOptions {
  /** the Docker Engine this node talks to (its ID), if any */
  dockerEngineId?: string | null;
  /** how long past expiry + timeout a container run is left for a node on its engine; default 40 s */
  containerHoldSeconds?: number;
  /**
   * Filled with the open_runs rows whose lease had passed, as the pass read them (at most
   * LISTED_AT_MOST + 1), for refreshLeaseHints once the caller's transaction has ended.
   */
  passedLeases?: PassedLease[];
}

/** An open_runs row whose leased_until had passed. */
export interface PassedLease {
  jobId: string;
  runId: string;
  scheduledTime: Date;
}

/** More passed leases than this are not sent to the node: the probe then reads the lists itself. */
const LISTED_AT_MOST = 5_000;

export async function selectExpiredRuns(
  tx: Queryable,
  limit: number,
  options: ExpiredRunOptions = {},
): Promise<ExpiredRun[]> {
  // The lists are read first, on their own: almost every pass finds no lease passed, and then
  // nothing else is planned. The runs are probed only when some are, with the list's ids and
  // times as parameters, so the plan takes in only the partitions those times name. As one
  // statement (the lists as InitPlans) every pass planned the probe against every partition of
  // runs and each of its indexes, none pruned before execution: 17–19 ms of planning a pass in a
  // 100K herd (PostgreSQL 18.4, 39 day partitions, pg_stat_statements with track_planning), as
  // much again as its execution, and growing with the days of history kept. A backlog of passed
  // leases (a node died holding thousands of runs claimed ahead) is not carried to the node and
  // back at every pass: past LISTED_AT_MOST the probe reads the lists itself, as before. The
  // probe runs in the caller's transaction with a snapshot of its own: each run is judged by its
  // own row, locked, as before; a lease that passes between the two is found next pass.
  const { rows: passed } = await tx.query<{ job_id: string | null; run_id: string; scheduled_time: Date }>(
    `${PASSED_SQL} LIMIT ${LISTED_AT_MOST + 1}`,
  );
  if (!passed.length) return [];
  const base = [limit, options.dockerEngineId ?? null, options.containerHoldSeconds ?? 40];
  const { rows } =
    passed.length > LISTED_AT_MOST
      ? await tx.query<ExpiredRun>(
          `WITH passed AS MATERIALIZED (${PASSED_SQL})
           ${probeSql('ARRAY(SELECT p.run_id FROM passed p)', 'ARRAY(SELECT DISTINCT p.scheduled_time FROM passed p)')}`,
          base,
        )
      : await tx.query<ExpiredRun>(probeSql('$4::text[]', '$5::timestamptz[]'), [
          ...base,
          passed.map((p) => p.run_id),
          distinctTimes(passed.map((p) => p.scheduled_time)),
        ]);
  for (const p of passed) {
    if (p.job_id !== null)
      options.passedLeases?.push({ jobId: p.job_id, runId: p.run_id, scheduledTime: p.scheduled_time });
  }
  return rows;
}

/**
 * Moves the passed leases `passed` (selectExpiredRuns' passedLeases) of runs that are not
 * expired — a lease hint written when the run was materialized (open-runs.ts, "lease hints")
 * that its run outlived, waiting to be claimed or still running, or a lease its worker's
 * heartbeat has since extended — to the run's own lease (running) or clears them (not running:
 * a claim writes its lease then), so that the reaper stops probing them at every pass; a backlog
 * is worked off LISTED_AT_MOST rows a pass. Expired runs are left as they are, for reaping.
 * One statement, on its own (not in the reaper's transaction: the locks it takes go with it).
 *
 * Each run is judged by its newest row, locked (FOR NO KEY UPDATE, in key order) so that it
 * cannot change before its hint is written; a run another transaction holds is skipped (SKIP
 * LOCKED) and left for the next pass. Judged by the statement's snapshot instead, a run that a
 * claim had taken within its hint (the row then only locked, not written) but not yet committed
 * read as waiting, and its hint was cleared: a running run with no lease listed, which the
 * reaper would never have found. A claim that writes its lease meanwhile wins as well: the row
 * is judged again on its newest version (leased_until < now()) before it is updated.
 */
export async function refreshLeaseHints(db: Queryable, passed: PassedLease[]): Promise<number> {
  if (!passed.length) return 0;
  const { rowCount } = await db.query(
    `WITH live AS MATERIALIZED (
       SELECT r.id, r.scheduled_time, r.status, r.lease_expires_at FROM runs r
        WHERE r.id = ANY ($2::text[]) AND r.scheduled_time = ANY ($3::timestamptz[])
          AND (r.status <> 'running' OR r.lease_expires_at >= now())
        ORDER BY r.id, r.scheduled_time
          FOR NO KEY UPDATE OF r SKIP LOCKED
     )
     UPDATE open_runs o
        SET leased_until = CASE WHEN l.status = 'running' THEN l.lease_expires_at END
       FROM live l
      WHERE o.job_id = ANY ($1::text[]) AND o.scheduled_time = ANY ($3::timestamptz[])
        AND o.run_id = l.id AND o.scheduled_time = l.scheduled_time
        AND o.leased_until < now()`,
    [
      [...new Set(passed.map((p) => p.jobId))],
      passed.map((p) => p.runId),
      distinctTimes(passed.map((p) => p.scheduledTime)),
    ],
  );
  return rowCount ?? 0;
}

/** the rows whose run's lease may have expired (see above) */
const PASSED_SQL = `SELECT o.job_id, o.run_id, o.scheduled_time FROM open_runs o WHERE o.leased_until < now()
     UNION ALL
     SELECT NULL, x.run_id, x.scheduled_time FROM running_runs x
      WHERE x.leased_until IS NULL OR x.leased_until < now()`;

/** The probe of runs `ids` at times `times` (SQL array expressions); $1 limit, $2 engine, $3 hold. */
function probeSql(ids: string, times: string): string {
  return `SELECT r.id, r.scheduled_time, r.tenant_id, r.job_id, r.priority, r.attempt, r.worker_id,
            j.retry_max_attempts, j.retry_initial_delay_seconds, j.retry_max_delay_seconds,
            j.target->>'type' AS target_type, j.target->>'queue' AS target_queue,
            n.stats->'containers'->>'engineId' AS worker_docker_engine, now() AS db_now
       FROM runs r
       JOIN jobs j ON j.id = r.job_id
       LEFT JOIN engine_nodes n ON n.id = r.worker_id AND j.target->>'type' = 'container'
      WHERE r.id = ANY (${ids}) AND r.scheduled_time = ANY (${times})
        AND r.status = 'running' AND r.lease_expires_at < now()
        AND (j.target->>'type' IS DISTINCT FROM 'container'
             OR r.lease_expires_at < now() - make_interval(secs => j.timeout_seconds + $3::int)
             OR n.stats->'containers'->>'engineId' = $2)
      ORDER BY r.lease_expires_at
      LIMIT $1
      FOR UPDATE OF r SKIP LOCKED`;
}

/**
 * Removes the running_runs rows of runs that have finished or no longer exist (an ender that
 * does not unlist its run, history trimmed by retention), at most `limit`. A finished run never
 * runs again, so a row is only ever removed when no claim can still need it. Only rows whose
 * lease has passed are looked at (an in-flight run's is not), each run probed by primary key
 * (LATERAL: an anti-join was planned as a read of the whole day's partition). Answers how many.
 */
export async function sweepRunningRuns(db: Queryable, limit: number): Promise<number> {
  const { rowCount } = await db.query(
    `DELETE FROM running_runs x
      WHERE (x.run_id, x.scheduled_time) IN (
        SELECT y.run_id, y.scheduled_time FROM running_runs y
         CROSS JOIN LATERAL (SELECT count(*) AS open FROM runs r
                              WHERE r.id = y.run_id AND r.scheduled_time = y.scheduled_time
                                AND r.finished_at IS NULL) p
         WHERE (y.leased_until IS NULL OR y.leased_until < now()) AND p.open = 0
         LIMIT $1)`,
    [limit],
  );
  return rowCount ?? 0;
}
