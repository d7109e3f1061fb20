// Alert channels, the tenant's alert policy and incidents (docs/alerts.md). A channel's whole
// configuration is sealed at rest; what the API shows is a copy with its secrets masked (a
// Slack URL's path, a webhook URL's query, a PagerDuty routing key), and sending that masked
// value back in a PATCH keeps the stored one. "Send test" goes through the same senders the
// dispatchers use, from this process.
import type { AlertMessage, ChannelConfig } from '@belfry/alerts';
import { ALERT_CHANNEL_PURPOSE, newId, SIGNING_SECRET_PURPOSE } from '@belfry/core';
import type { Actor, ServiceDeps } from '../context';
import { AppError } from '../errors';
import {
  AlertChannelInput,
  type AlertChannelPatch,
  type AlertChannelView,
  type AlertPolicyInput,
  type AlertPolicyView,
  type IncidentView,
  type IncidentsQuery,
  type JobAlertsInput,
} from '../schemas/alerts';
import { authorize } from '../security/scopes';
import { type Queryable, withTransaction } from '../sql/tx';
import { auditSql } from './audit';
import { decodeCursor, type Page, pageLimit, sortTsSql, toPage } from './pagination';

export const MASK = '***';
const MAX_CHANNELS = 100;

/** The configuration as the API shows it. */
export function maskChannel(config: ChannelConfig): Record<string, unknown> {
  switch (config.type) {
    case 'email':
      return { type: 'email', to: config.to };
    case 'slack':
      return { type: 'slack', url: `${new URL(config.url).origin}/${MASK}` };
    case 'webhook': {
      const u = new URL(config.url);
      return { type: 'webhook', url: u.search ? `${u.origin}${u.pathname}?${MASK}` : config.url };
    }
    case 'pagerduty':
      return { type: 'pagerduty', routingKey: MASK, url: config.url ?? null };
  }
}

interface ChannelRow {
  id: string;
  type: string;
  config: Record<string, unknown>;
  sealed: Buffer;
  created_at: Date;
  updated_at: Date;
}

function toView(row: ChannelRow): AlertChannelView {
  return {
    ...row.config,
    id: row.id,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  } as AlertChannelView;
}

function invalid(issues: { path: PropertyKey[]; message: string }[]): AppError {
  return AppError.invalid(issues.map((i) => ({ path: i.path.map(String).join('.'), message: i.message })));
}

async function selectChannel(deps: ServiceDeps, tenantId: string, id: string): Promise<ChannelRow> {
  const { rows } = await deps.pool.query<ChannelRow>(
    'SELECT id, type, config, sealed, created_at, updated_at FROM alert_channels WHERE tenant_id = $1 AND id = $2',
    [tenantId, id],
  );
  if (!rows[0]) throw AppError.notFound('Alert channel');
  return rows[0];
}

export async function listChannels(deps: ServiceDeps, actor: Actor): Promise<{ data: AlertChannelView[] }> {
  authorize(actor, 'jobs:read');
  const { rows } = await deps.pool.query<ChannelRow>(
    'SELECT id, type, config, sealed, created_at, updated_at FROM alert_channels WHERE tenant_id = $1 ORDER BY id',
    [actor.tenantId],
  );
  return { data: rows.map(toView) };
}

export async function getChannel(deps: ServiceDeps, actor: Actor, id: string): Promise<AlertChannelView> {
  authorize(actor, 'jobs:read');
  return toView(await selectChannel(deps, actor.tenantId, id));
}

export async function createChannel(
  deps: ServiceDeps,
  actor: Actor,
  input: AlertChannelInput,
): Promise<AlertChannelView> {
  authorize(actor, 'admin');
  const id = newId('ach');
  const config = input as ChannelConfig;
  const row = await withTransaction(deps.pool, async (tx) => {
    const { rows: count } = await tx.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM alert_channels WHERE tenant_id = $1',
      [actor.tenantId],
    );
    if ((count[0]?.n ?? 0) >= MAX_CHANNELS) {
      throw new AppError('unprocessable', `a tenant may have at most ${MAX_CHANNELS} alert channels`);
    }
    const { rows } = await tx.query<ChannelRow>(
      `INSERT INTO alert_channels (id, tenant_id, type, config, sealed) VALUES ($1, $2, $3, $4, $5)
       RETURNING id, type, config, sealed, created_at, updated_at`,
      [
        id,
        actor.tenantId,
        config.type,
        JSON.stringify(maskChannel(config)),
        deps.keyring.seal(JSON.stringify(config), { tenantId: actor.tenantId, purpose: ALERT_CHANNEL_PURPOSE }),
      ],
    );
    await auditSql(tx, actor, 'alert_channel.create', 'alert_channel', id, { type: config.type });
    return rows[0] as ChannelRow;
  });
  return toView(row);
}

export async function updateChannel(
  deps: ServiceDeps,
  actor: Actor,
  id: string,
  patch: AlertChannelPatch,
): Promise<AlertChannelView> {
  authorize(actor, 'admin');
  const row = await withTransaction(deps.pool, async (tx) => {
    const { rows } = await tx.query<ChannelRow>(
      'SELECT id, type, config, sealed, created_at, updated_at FROM alert_channels WHERE tenant_id = $1 AND id = $2 FOR UPDATE',
      [actor.tenantId, id],
    );
    const current = rows[0];
    if (!current) throw AppError.notFound('Alert channel');
    const stored = JSON.parse(
      deps.keyring.open(current.sealed, { tenantId: actor.tenantId, purpose: ALERT_CHANNEL_PURPOSE }),
    ) as ChannelConfig;
    const masked = maskChannel(stored);
    const merged: Record<string, unknown> = { ...stored };
    for (const [key, value] of Object.entries(patch)) {
      if (value === undefined) continue;
      // The masked value read back means "keep what is stored".
      if (value === masked[key] || value === MASK) continue;
      merged[key] = value;
    }
    const parsed = AlertChannelInput.safeParse(merged);
    if (!parsed.success) throw invalid(parsed.error.issues);
    const config = parsed.data as ChannelConfig;
    const { rows: updated } = await tx.query<ChannelRow>(
      `UPDATE alert_channels SET config = $3, sealed = $4, updated_at = now() WHERE tenant_id = $1 AND id = $2
       RETURNING id, type, config, sealed, created_at, updated_at`,
      [
        actor.tenantId,
        id,
        JSON.stringify(maskChannel(config)),
        deps.keyring.seal(JSON.stringify(config), { tenantId: actor.tenantId, purpose: ALERT_CHANNEL_PURPOSE }),
      ],
    );
    await auditSql(tx, actor, 'alert_channel.update', 'alert_channel', id, { fields: Object.keys(patch) });
    return updated[0] as ChannelRow;
  });
  return toView(row);
}

export async function deleteChannel(deps: ServiceDeps, actor: Actor, id: string): Promise<void> {
  authorize(actor, 'admin');
  await withTransaction(deps.pool, async (tx) => {
    const { rowCount } = await tx.query('DELETE FROM alert_channels WHERE tenant_id = $1 AND id = $2', [
      actor.tenantId,
      id,
    ]);
    if (!rowCount) throw AppError.notFound('Alert channel');
    // Pending notifications to it fail when the dispatcher finds the channel gone.
    await auditSql(tx, actor, 'alert_channel.delete', 'alert_channel', id, {});
  });
}

export async function testChannel(
  deps: ServiceDeps,
  actor: Actor,
  id: string,
): Promise<{ delivered: boolean; error?: string }> {
  authorize(actor, 'admin');
  const row = await selectChannel(deps, actor.tenantId, id);
  if (!deps.alertSender) return { delivered: false, error: 'this process cannot send alerts' };
  const config = JSON.parse(
    deps.keyring.open(row.sealed, { tenantId: actor.tenantId, purpose: ALERT_CHANNEL_PURPOSE }),
  ) as ChannelConfig;
  const { rows } = await deps.pool.query<{ current_secret: Buffer }>(
    'SELECT current_secret FROM signing_secrets WHERE tenant_id = $1',
    [actor.tenantId],
  );
  const signingSecrets = rows[0]
    ? [deps.keyring.open(rows[0].current_secret, { tenantId: actor.tenantId, purpose: SIGNING_SECRET_PURPOSE })]
    : [];
  const message: AlertMessage = { id: newId('ntf'), tenantId: actor.tenantId, test: true, items: [] };
  const result = await deps.alertSender.send(config, message, { signingSecrets, attempt: 1, timeoutMs: 10_000 });
  return result.ok ? { delivered: true } : { delivered: false, error: result.error };
}

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

const DEFAULT_POLICY: AlertPolicyView = {
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

interface IncidentRow {
  id: string;
  job_id: string;
  job_name: string | null;
  kind: IncidentView['kind'];
  opened_at: Date;
  resolved_at: Date | null;
  run_id: string | null;
  scheduled_time: Date | null;
  sort_ts: string;
}

/** Newest first; each with the timeline of its notifications. */
export async function listIncidents(
  deps: ServiceDeps,
  actor: Actor,
  query: IncidentsQuery = {},
): Promise<Page<IncidentView>> {
  authorize(actor, 'runs:read');
  const limit = pageLimit(query.limit);
  const after = decodeCursor('incidents', query.cursor);
  const values: unknown[] = [actor.tenantId];
  const where = ['i.tenant_id = $1'];
  if (query.status === 'open') where.push('i.resolved_at IS NULL');
  if (query.status === 'resolved') where.push('i.resolved_at IS NOT NULL');
  if (query.jobId !== undefined) where.push(`i.job_id = $${values.push(query.jobId)}`);
  if (after) where.push(`(i.opened_at, i.id) < ($${values.push(after.t)}::timestamptz, $${values.push(after.id)})`);
  values.push(limit + 1);
  const { rows } = await deps.pool.query<IncidentRow>(
    `SELECT i.id, i.job_id, j.name AS job_name, i.kind, i.opened_at, i.resolved_at, i.run_id, i.scheduled_time,
            ${sortTsSql('i.opened_at')} AS sort_ts
     FROM incidents i LEFT JOIN jobs j ON j.id = i.job_id AND j.tenant_id = i.tenant_id
     WHERE ${where.join(' AND ')}
     ORDER BY i.opened_at DESC, i.id DESC LIMIT $${values.length}`,
    values,
  );
  const page = toPage(
    'incidents',
    rows,
    limit,
    (r) => ({ t: r.sort_ts, id: r.id }),
    (r) => r,
  );
  const { rows: notes } = await deps.pool.query<{
    id: string;
    incident_id: string;
    channel_id: string;
    event: 'opened' | 'resolved';
    status: 'pending' | 'sent' | 'failed';
    attempts: number;
    sent_at: Date | null;
    last_error: string | null;
    created_at: Date;
  }>(
    `SELECT id, incident_id, channel_id, event, status, attempts, sent_at, last_error, created_at
     FROM alert_notifications WHERE tenant_id = $1 AND incident_id = ANY($2::text[]) ORDER BY created_at, id`,
    [actor.tenantId, page.data.map((r) => r.id)],
  );
  return {
    data: page.data.map((r) => ({
      id: r.id,
      jobId: r.job_id,
      jobName: r.job_name,
      kind: r.kind,
      openedAt: r.opened_at.toISOString(),
      resolvedAt: r.resolved_at?.toISOString() ?? null,
      runId: r.run_id,
      scheduledTime: r.scheduled_time?.toISOString() ?? null,
      notifications: notes
        .filter((n) => n.incident_id === r.id)
        .map((n) => ({
          id: n.id,
          channelId: n.channel_id,
          event: n.event,
          status: n.status,
          attempts: n.attempts,
          sentAt: n.sent_at?.toISOString() ?? null,
          error: n.last_error,
          createdAt: n.created_at.toISOString(),
        })),
    })),
    nextCursor: page.nextCursor,
  };
}
