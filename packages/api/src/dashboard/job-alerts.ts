// A job's alerting, as its dashboard page shows it: the job's own `alerts` (or none: the tenant
// policy), the settings in effect with where each comes from, and the job's open incidents.
// The effective values come from the same SQL fragment the engine's incident rules and the
// watchdog use, so the page says what they will do.
import { EFFECTIVE_ALERT_SETTINGS_SQL } from '@belfry/db';
import type { Actor, ServiceDeps } from '../context';
import { AppError } from '../errors';
import type { AlertPolicyView, IncidentView, JobAlertsInput } from '../schemas/alerts';
import { authorize } from '../security/scopes';
import { listIncidents } from '../services/incidents';

export type AlertSettingKey = keyof AlertPolicyView;
const KEYS: AlertSettingKey[] = [
  'channels',
  'onDead',
  'afterConsecutiveFailures',
  'lateAfterSeconds',
  'notifyRecovery',
];

export interface JobAlertsView {
  jobId: string;
  /** the job's own settings as stored; null = it follows the tenant policy throughout */
  own: JobAlertsInput | null;
  /** what the incident rules apply to this job; channels null = every channel of the tenant */
  effective: AlertPolicyView;
  /** per setting: the job's own value, or the tenant policy's (its defaults when it has none) */
  source: Record<AlertSettingKey, 'job' | 'policy'>;
  /** open incidents of the job, newest first, with their notifications */
  openIncidents: IncidentView[];
}

export async function jobAlerts(deps: ServiceDeps, actor: Actor, jobId: string): Promise<JobAlertsView> {
  authorize(actor, 'jobs:read');
  const { rows } = await deps.pool.query<{
    alerts: JobAlertsInput | null;
    on_dead: boolean;
    after_consecutive_failures: number | null;
    late_after_seconds: number | null;
    notify_recovery: boolean;
    channels: string[] | null;
  }>(
    `SELECT j.alerts, ${EFFECTIVE_ALERT_SETTINGS_SQL}
       FROM jobs j LEFT JOIN alert_policies p ON p.tenant_id = j.tenant_id
      WHERE j.tenant_id = $1 AND j.id = $2 AND j.deleted_at IS NULL`,
    [actor.tenantId, jobId],
  );
  const row = rows[0];
  if (!row) throw AppError.notFound('Job');
  const own = row.alerts;
  const incidents = await listIncidents(deps, actor, { jobId, status: 'open', limit: 100 });
  return {
    jobId,
    own,
    effective: {
      channels: row.channels,
      onDead: row.on_dead,
      afterConsecutiveFailures: row.after_consecutive_failures,
      lateAfterSeconds: row.late_after_seconds,
      notifyRecovery: row.notify_recovery,
    },
    source: Object.fromEntries(KEYS.map((k) => [k, own && k in own ? 'job' : 'policy'])) as JobAlertsView['source'],
    openIncidents: incidents.data,
  };
}
