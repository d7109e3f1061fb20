// Alert rules (docs/alerts.md): the tenant's default policy and a job's own `alerts` override,
// stored inside the job's write. Channel ids either names must be the tenant's own.
import type { Actor, ServiceDeps } from '../context';
import { AppError } from '../errors';
import type { AlertPolicyInput, AlertPolicyView, JobAlertsInput } from '../schemas/alerts';
import { authorize } from '../security/scopes';
import { type Queryable, withTransaction } from '../sql/tx';
import { auditSql } from './audit';

/** Channel ids a policy or job names must be the tenant's own. */
export async function assertChannelsExist(
  db: Queryable,
  tenantId: string,
  ids: readonly string[] | null | undefined,
  path: string,
): Promise<void> {
  if (!ids?.length) return;
  const { rows } = await db.query<{ id: string }>(
    'SELECT id FROM alert_channels WHERE tenant_id = $1 AND id = ANY($2::text[])',
    [tenantId, [...new Set(ids)]],
  );
  const known = new Set(rows.map((r) => r.id));
  const missing = ids.findIndex((id) => !known.has(id));
  if (missing >= 0) {
    throw new AppError('unprocessable', `${path}.${missing}: no such alert channel`, {
      errors: [{ path: `${path}.${missing}`, message: 'no such alert channel' }],
    });
  }
}

/** Stores a job's own alert settings (only the keys given; null = the tenant policy), inside the job's write. */
export async function setJobAlerts(
  db: Queryable,
  tenantId: string,
  jobId: string,
  alerts: JobAlertsInput | null,
): Promise<void> {
  await assertChannelsExist(db, tenantId, alerts?.channels, 'alerts.channels');
  const kept = jobAlertsValue(alerts);
  await db.query('UPDATE jobs SET alerts = $3::jsonb WHERE id = $1 AND tenant_id = $2', [
    jobId,
    tenantId,
    kept ? JSON.stringify(kept) : null,
  ]);
}

/** What jobs.alerts holds: the keys given, or null (the tenant policy). */
export function jobAlertsValue(alerts: JobAlertsInput | null | undefined): Record<string, unknown> | null {
  return alerts ? Object.fromEntries(Object.entries(alerts).filter(([, v]) => v !== undefined)) : null;
}

export const DEFAULT_POLICY: AlertPolicyView = {
  channels: null,
  onDead: true,
  afterConsecutiveFailures: null,
  lateAfterSeconds: null,
  notifyRecovery: true,
};

export async function getPolicy(deps: ServiceDeps, actor: Actor): Promise<AlertPolicyView> {
  authorize(actor, 'jobs:read');
  const { rows } = await deps.pool.query<{
    channels: string[] | null;
    on_dead: boolean;
    after_consecutive_failures: number | null;
    late_after_seconds: number | null;
    notify_recovery: boolean;
  }>('SELECT * FROM alert_policies WHERE tenant_id = $1', [actor.tenantId]);
  const r = rows[0];
  if (!r) return DEFAULT_POLICY;
  return {
    channels: r.channels,
    onDead: r.on_dead,
    afterConsecutiveFailures: r.after_consecutive_failures,
    lateAfterSeconds: r.late_after_seconds,
    notifyRecovery: r.notify_recovery,
  };
}

/** Replaces the policy; a key left out takes its default. */
export async function putPolicy(deps: ServiceDeps, actor: Actor, input: AlertPolicyInput): Promise<AlertPolicyView> {
  authorize(actor, 'admin');
  const policy: AlertPolicyView = {
    ...DEFAULT_POLICY,
    ...Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined)),
  };
  await assertChannelsExist(deps.pool, actor.tenantId, policy.channels, 'channels');
  await withTransaction(deps.pool, async (tx) => {
    await tx.query(
      `INSERT INTO alert_policies (tenant_id, channels, on_dead, after_consecutive_failures, late_after_seconds, notify_recovery)
       VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (tenant_id) DO UPDATE SET channels = $2, on_dead = $3, after_consecutive_failures = $4,
         late_after_seconds = $5, notify_recovery = $6, updated_at = now()`,
      [
        actor.tenantId,
        policy.channels,
        policy.onDead,
        policy.afterConsecutiveFailures,
        policy.lateAfterSeconds,
        policy.notifyRecovery,
      ],
    );
    await auditSql(tx, actor, 'alert_policy.update', 'alert_policy', null, { ...policy });
  });
  return policy;
}
