// Alert channels (docs/alerts.md): create, read, change, delete and "send test". A channel's
// whole configuration is sealed at rest; what the API shows is a copy with its secrets masked
// (a Slack URL's path, a webhook URL's query, a PagerDuty routing key), and sending that masked
// value back in a PATCH keeps the stored one. "Send test" goes through the same senders the
// dispatchers use, from this process.
import type { AlertMessage, ChannelConfig } from '@belfry/alerts';
import { ALERT_CHANNEL_PURPOSE, newId, SIGNING_SECRET_PURPOSE } from '@belfry/core';
import type { Actor, ServiceDeps } from '../context';
import { AppError } from '../errors';
import {
  AlertChannelInput,
  type AlertChannelPatch,
  type AlertChannelsQuery,
  type AlertChannelView,
} from '../schemas/alerts';
import { authorize } from '../security/scopes';
import { withTransaction } from '../sql/tx';
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

/** Oldest first, a page at a time (`?limit=`, `?cursor=`). */
export async function listChannels(
  deps: ServiceDeps,
  actor: Actor,
  query: AlertChannelsQuery = {},
): Promise<Page<AlertChannelView>> {
  authorize(actor, 'jobs:read');
  const limit = pageLimit(query.limit);
  const after = decodeCursor('alert-channels', query.cursor);
  const values: unknown[] = [actor.tenantId];
  const where = ['tenant_id = $1'];
  if (after) where.push(`(created_at, id) > ($${values.push(after.t)}::timestamptz, $${values.push(after.id)})`);
  values.push(limit + 1);
  const { rows } = await deps.pool.query<ChannelRow & { sort_ts: string }>(
    `SELECT id, type, config, sealed, created_at, updated_at, ${sortTsSql('created_at')} AS sort_ts
     FROM alert_channels WHERE ${where.join(' AND ')}
     ORDER BY created_at, id LIMIT $${values.length}`,
    values,
  );
  return toPage('alert-channels', rows, limit, (r) => ({ t: r.sort_ts, id: r.id }), toView);
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
