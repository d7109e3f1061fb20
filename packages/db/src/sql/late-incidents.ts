// The late watchdog's SQL (docs/alerts.md): an occurrence is late when it has not started
// lateAfterSeconds after it was due — either its schedule entry was never materialized (no
// scheduler ran) or its run still waits (no worker took it). Both scans read only the database,
// so the web process can run them while every engine node is down or frozen. Idempotent: any
// number of watchdogs may run at once (one open incident per job and kind).
import { openIncidents, queueRecoveryNotices } from './alert-notifications';
import { EFFECTIVE_LATE_AFTER_SQL } from './alert-settings';
import type { Queryable } from './types';

// A job is overdue now: an active job whose schedule entry, or a first attempt of a run, is
// past its due time by more than the job's lateAfterSeconds.
const OVERDUE_ENTRY = `
  SELECT e.job_id, j.tenant_id, NULL::text AS run_id, e.next_run_at AS due
  FROM schedule_entries e
  JOIN jobs j ON j.id = e.job_id
  LEFT JOIN alert_policies p ON p.tenant_id = j.tenant_id
  WHERE j.status = 'active' AND j.deleted_at IS NULL
    AND e.next_run_at < now() - make_interval(secs => coalesce(${EFFECTIVE_LATE_AFTER_SQL}, 1e9))`;

const OVERDUE_RUN = `
  SELECT r.job_id, r.tenant_id, r.id AS run_id, r.scheduled_time AS due
  FROM runs r
  JOIN jobs j ON j.id = r.job_id
  LEFT JOIN alert_policies p ON p.tenant_id = j.tenant_id
  WHERE r.status = 'pending' AND r.attempt = 0 AND j.status = 'active' AND j.deleted_at IS NULL
    AND r.scheduled_time < now() - make_interval(secs => coalesce(${EFFECTIVE_LATE_AFTER_SQL}, 1e9))`;

export async function openLateIncidents(tx: Queryable): Promise<number> {
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
