// The incident rules at the moment runs finish (docs/alerts.md), in the same transaction as the
// outcome itself, so an outcome and what it means for alerts commit together. Per job of a batch:
// a success resets the failure streak and resolves the job's open dead/failing incidents (with a
// recovery notice); failures extend the streak; a dead run opens a `dead` incident when the
// job's settings say onDead, a streak at the threshold opens a `failing` one. While a job has
// an open dead or failing incident no second one of the other kind opens: a job in trouble is
// announced once, never once per failed run.
import type { IncidentCandidate } from './alert-notifications';
import { openIncidents, queueRecoveryNotices } from './alert-notifications';
import { EFFECTIVE_ALERT_SETTINGS_SQL } from './alert-settings';
import { statement } from './prepared';
import type { Queryable } from './types';

export interface AlertOutcome {
  runId: string;
  tenantId: string;
  jobId: string;
  /** the run's new status; only succeeded, failed (a retry is coming) and dead count */
  status: string;
}

interface JobSummary {
  tenantId: string;
  jobId: string;
  /** the last success of the batch, if any */
  successRunId: string | null;
  /** failures after the last success */
  failures: number;
  lastFailedRunId: string | null;
  /** the last dead run after the last success */
  deadRunId: string | null;
}

/** Folds a batch (in the order the outcomes happened) into one summary per job. */
export function summarizeAlertOutcomes(outcomes: AlertOutcome[]): JobSummary[] {
  const byJob = new Map<string, JobSummary>();
  for (const o of outcomes) {
    if (o.status !== 'succeeded' && o.status !== 'failed' && o.status !== 'dead') continue;
    let s = byJob.get(o.jobId);
    if (!s) {
      s = {
        tenantId: o.tenantId,
        jobId: o.jobId,
        successRunId: null,
        failures: 0,
        lastFailedRunId: null,
        deadRunId: null,
      };
      byJob.set(o.jobId, s);
    }
    if (o.status === 'succeeded') {
      s.successRunId = o.runId;
      s.failures = 0;
      s.lastFailedRunId = null;
      s.deadRunId = null;
    } else {
      s.failures++;
      s.lastFailedRunId = o.runId;
      if (o.status === 'dead') s.deadRunId = o.runId;
    }
  }
  // Row locks (streaks, incidents) are taken in job order, so concurrent batches do not deadlock.
  return [...byJob.values()].sort((a, b) => (a.jobId < b.jobId ? -1 : a.jobId > b.jobId ? 1 : 0));
}

export interface AlertChanges {
  opened: number;
  resolved: number;
}

export async function recordAlertOutcomes(tx: Queryable, outcomes: AlertOutcome[]): Promise<AlertChanges> {
  const jobs = summarizeAlertOutcomes(outcomes);
  if (!jobs.length) return { opened: 0, resolved: 0 };
  const succeeded = jobs.filter((j) => j.successRunId);
  let resolved: string[] = [];
  if (succeeded.length) {
    // Cheap when nothing is wrong (the common case): both statements find no rows by index.
    const { rows } = await tx.query<{ id: string }>(statement(tx, 'belfry_alert_resets', RESET_SQL), [
      succeeded.map((j) => j.jobId),
      succeeded.map((j) => j.successRunId),
    ]);
    resolved = rows.map((r) => r.id);
    await queueRecoveryNotices(tx, resolved);
  }
  const failing = jobs.filter((j) => j.failures > 0);
  let opened = 0;
  if (failing.length) {
    const { rows } = await tx.query<{
      job_id: string;
      tenant_id: string;
      streak: number;
      on_dead: boolean;
      after_consecutive_failures: number | null;
      in_trouble: boolean;
    }>(
      `WITH f AS (SELECT * FROM unnest($1::text[], $2::text[], $3::int[]) AS f(job_id, tenant_id, n)),
       st AS (
         INSERT INTO job_alert_states AS st (job_id, tenant_id, consecutive_failures)
         SELECT job_id, tenant_id, n FROM f
         ON CONFLICT (job_id) DO UPDATE SET consecutive_failures = st.consecutive_failures + excluded.consecutive_failures,
                                            updated_at = now()
         RETURNING st.job_id, st.tenant_id, st.consecutive_failures
       )
       SELECT st.job_id, st.tenant_id, st.consecutive_failures AS streak, s.on_dead, s.after_consecutive_failures,
              EXISTS (SELECT 1 FROM incidents i WHERE i.job_id = st.job_id AND i.resolved_at IS NULL
                        AND i.kind IN ('dead', 'failing')) AS in_trouble
       FROM st
       JOIN jobs j ON j.id = st.job_id
       LEFT JOIN alert_policies p ON p.tenant_id = j.tenant_id
       CROSS JOIN LATERAL (SELECT ${EFFECTIVE_ALERT_SETTINGS_SQL}) s`,
      [failing.map((j) => j.jobId), failing.map((j) => j.tenantId), failing.map((j) => j.failures)],
    );
    const byJob = new Map(failing.map((j) => [j.jobId, j]));
    const candidates: IncidentCandidate[] = [];
    for (const r of rows) {
      const job = byJob.get(r.job_id);
      if (!job || r.in_trouble) continue;
      if (job.deadRunId && r.on_dead) {
        candidates.push({
          tenantId: r.tenant_id,
          jobId: r.job_id,
          kind: 'dead',
          runId: job.deadRunId,
          scheduledTime: null,
        });
      } else if (r.after_consecutive_failures !== null && r.streak >= r.after_consecutive_failures) {
        candidates.push({
          tenantId: r.tenant_id,
          jobId: r.job_id,
          kind: 'failing',
          runId: job.lastFailedRunId,
          scheduledTime: null,
        });
      }
    }
    opened = (await openIncidents(tx, candidates)).length;
  }
  return { opened, resolved: resolved.length };
}

// a job's success resets its failure streak and resolves its open failure incidents
const RESET_SQL = `WITH s AS (SELECT * FROM unnest($1::text[], $2::text[]) AS s(job_id, run_id)),
       reset AS (
         UPDATE job_alert_states st SET consecutive_failures = 0, updated_at = now()
         FROM s WHERE st.job_id = s.job_id AND st.consecutive_failures > 0
       )
       UPDATE incidents i SET resolved_at = now(), resolved_run_id = s.run_id
       FROM s WHERE i.job_id = s.job_id AND i.resolved_at IS NULL AND i.kind IN ('dead', 'failing')
       RETURNING i.id`;
