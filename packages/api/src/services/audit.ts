// The audit log: who did what to which object, written in the same transaction as the
// change (through Prisma or a raw client, whichever the change uses), and read back newest
// first by admins.
import type { Prisma } from '@belfry/db';
import type { Actor, ServiceDeps } from '../context';
import { authorize } from '../security/scopes';
import type { Queryable } from '../sql/tx';
import { decodeCursor, type Page, type PageInput, pageLimit, sortTsSql, toPage } from './pagination';

type Tx = { auditLog: { create(args: { data: Prisma.Prisma.AuditLogUncheckedCreateInput }): Promise<unknown> } };

export async function audit(
  tx: Tx,
  actor: Actor,
  action: string,
  targetType: string,
  targetId: string | null,
  details: Record<string, unknown>,
): Promise<void> {
  await tx.auditLog.create({
    data: {
      tenantId: actor.tenantId,
      actorType: actor.type,
      actorId: actor.id,
      action,
      targetType,
      targetId,
      details: details as Prisma.Prisma.InputJsonValue,
    },
  });
}

/** The same entry through a node-postgres client inside the caller's transaction. */
export async function auditSql(
  db: Queryable,
  actor: Actor,
  action: string,
  targetType: string,
  targetId: string | null,
  details: Record<string, unknown>,
): Promise<void> {
  await db.query(
    `INSERT INTO audit_log (tenant_id, actor_type, actor_id, action, target_type, target_id, details)
     VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb)`,
    [actor.tenantId, actor.type, actor.id, action, targetType, targetId, JSON.stringify(details)],
  );
}

export interface AuditEntryView {
  id: string;
  actorType: 'user' | 'api_key' | 'system';
  actorId: string | null;
  action: string;
  targetType: string;
  targetId: string | null;
  details: Record<string, unknown>;
  createdAt: string;
}

export interface ListAuditLogInput extends PageInput {
  targetType?: string;
  targetId?: string;
}

interface AuditRow {
  id: string;
  actor_type: AuditEntryView['actorType'];
  actor_id: string | null;
  action: string;
  target_type: string;
  target_id: string | null;
  details: Record<string, unknown>;
  created_at: Date;
  sort_ts: string;
}

export async function listAuditLog(
  deps: ServiceDeps,
  actor: Actor,
  input: ListAuditLogInput = {},
): Promise<Page<AuditEntryView>> {
  authorize(actor, 'admin');
  const limit = pageLimit(input.limit);
  const after = decodeCursor('audit', input.cursor);
  const values: unknown[] = [actor.tenantId];
  const where = ['tenant_id = $1'];
  if (input.targetType !== undefined) where.push(`target_type = $${values.push(input.targetType)}`);
  if (input.targetId !== undefined) where.push(`target_id = $${values.push(input.targetId)}`);
  if (after)
    where.push(`(created_at, id) < ($${values.push(after.t)}::timestamptz, $${values.push(after.id)}::bigint)`);
  values.push(limit + 1);
  const { rows } = await deps.pool.query<AuditRow>(
    `SELECT id::text AS id, actor_type, actor_id, action, target_type, target_id, details, created_at,
            ${sortTsSql('created_at')} AS sort_ts
       FROM audit_log WHERE ${where.join(' AND ')}
      ORDER BY created_at DESC, id DESC LIMIT $${values.length}`,
    values,
  );
  return toPage(
    'audit',
    rows,
    limit,
    (r) => ({ t: r.sort_ts, id: r.id }),
    (r) => ({
      id: r.id,
      actorType: r.actor_type,
      actorId: r.actor_id,
      action: r.action,
      targetType: r.target_type,
      targetId: r.target_id,
      details: r.details,
      createdAt: r.created_at.toISOString(),
    }),
  );
}
