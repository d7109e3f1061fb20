// The late watchdog's SQL (docs/alerts.md): an occurrence is late when it has not started
// lateAfterSeconds after it was due — either its next occurrence was never materialized (no
// scheduler ran) or its run still waits (no worker took it). Both scans read only the database,
// so the web process can run them while every engine node is down or frozen. Idempotent: any
// number of watchdogs may run at once (one open incident per job and kind).
import { openIncidents, queueRecoveryNotices } from './alert-notifications';
import { EFFECTIVE_LATE_AFTER_SQL } from './alert-settings';
import type { Queryable } from './types';

// A job is overdue now: an active job whose next occurrence (never materialized), or a first
// attempt of a run, is past its due time by more than the job's lateAfterSeconds. The waiting
// runs are found among the open ones, listed in open_runs (open-runs.ts); the job is the list's
// own column, so a question about one job (the resolving UPDATE's) reads that job's rows only.
// A one-off is stored `completed` once its occurrence is materialized and is active while that
// scheduled run is open (jobStatusSql, open-runs.ts): its waiting run counts.
const OVERDUE_ENTRY = `
  SELECT j.id AS job_id, j.tenant_id, NULL::text AS run_id, j.next_run_at AS due
  FROM jobs j
  LEFT JOIN alert_policies p ON p.tenant_id = j.tenant_id
  WHERE j.status = 'active' AND j.deleted_at IS NULL AND j.next_run_at IS NOT NULL
    AND j.next_run_at < now() - make_interval(secs => coalesce(${EFFECTIVE_LATE_AFTER_SQL}, 1e9))`;

const OVERDUE_RUN = `
  SELECT o.job_id, r.tenant_id, r.id AS run_id, r.scheduled_time AS due
  FROM open_runs o
  JOIN runs r ON r.id = o.run_id AND r.scheduled_time = o.scheduled_time AND r.job_id = o.job_id
  JOIN jobs j ON j.id = o.job_id
  LEFT JOIN alert_policies p ON p.tenant_id = j.tenant_id
  WHERE r.finished_at IS NULL AND r.status = 'pending' AND r.attempt = 0 AND j.deleted_at IS NULL
    AND (j.status = 'active' OR (j.status = 'completed' AND r.trigger = 'schedule'))
    AND o.scheduled_time < now() - make_interval(secs => coalesce(${EFFECTIVE_LATE_AFTER_SQL}, 1e9))`;

// Late detection is opt-in (a tenant's policy or a job's own lateAfterSeconds). Where nothing
// sets it — most installations, every herd — the scans above would read every waiting run of
// every partition with its job, each tick, to find nothing (half a second per scan in a 20,000-run
// herd, and planned anew each time over all partitions): they are skipped. Both probes are
// cheap: alert_policies has a row per tenant at most, and jobs_late_after_idx (migration
// 20261201061500) holds only the jobs that set a threshold. The jobs probe is an ordered LIMIT 1
// in FROM, not a plain EXISTS: the planner guesses an expression IS NOT NULL for 99.5 % of rows,
// and for EXISTS it then read jobs sequentially (all of it, when nothing matches); ordered by id,
// the partial index is the cheaper way by its own estimates.
const LATE_DETECTION_SET = `SELECT EXISTS (SELECT 1 FROM alert_policies WHERE late_after_seconds IS NOT NULL)
    OR EXISTS (SELECT 1 FROM (SELECT id FROM jobs WHERE (alerts ->> 'lateAfterSeconds') IS NOT NULL
                              ORDER BY id LIMIT 1) j) AS set`;

export async function openLateIncidents(tx: Queryable): Promise<number> {
  const gate = await tx.query<{ set: boolean }>(LATE_DETECTION_SET);
  if (!gate.rows[0]?.set) return 0;
  const { rows } = await tx.query<{ job_id: string; tenant_id: string; run_id: string | null; due: Date }>(
    `SELECT DISTINCT ON (job_id) job_id, tenant_id, run_id, due
     FROM (${OVERDUE_ENTRY} UNION ALL ${OVERDUE_RUN}) o
     WHERE NOT EXISTS (SELECT 1 FROM incidents i WHERE i.job_id = o.job_id AND i.kind = 'late' AND i.resolved_at IS NULL)
     ORDER BY job_id, due`,
  );
  const opened = await openIncidents(
    tx,
    rows.map((r) => ({
      tenantId: r.tenant_id,
      jobId: r.job_id,
      kind: 'late' as const,
      runId: r.run_id,
      scheduledTime: r.due,
    })),
  );
  return opened.length;
}

/** Resolves late incidents of jobs with nothing overdue any more (judged in the statement's own snapshot). */
export async function resolveLateIncidents(tx: Queryable): Promise<number> {
  // Nothing to resolve (the common case): skip planning the scans at all.
  const open = await tx.query<{ any: boolean }>(
    "SELECT EXISTS (SELECT 1 FROM incidents WHERE kind = 'late' AND resolved_at IS NULL) AS any",
  );
  if (!open.rows[0]?.any) return 0;
  const { rows } = await tx.query<{ id: string }>(
    `UPDATE incidents i SET resolved_at = now()
     WHERE i.kind = 'late' AND i.resolved_at IS NULL
       AND NOT EXISTS (SELECT 1 FROM (${OVERDUE_ENTRY} UNION ALL ${OVERDUE_RUN}) o WHERE o.job_id = i.job_id)
     RETURNING i.id`,
  );
  await queueRecoveryNotices(
    tx,
    rows.map((r) => r.id),
  );
  return rows.length;
}
