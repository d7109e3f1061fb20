// A tenant's members: listing, changing a role, removing (or leaving). Owners are protected:
// only an owner changes or removes an owner or makes someone one, and a tenant always keeps
// at least one owner. Membership rows are locked for the check, so two admins demoting the
// last two owners at once cannot both succeed. Removing a member (or leaving) revokes the API
// keys they created in the tenant, in the same transaction: a key must not outlive the access
// of the person who holds it. The list says how many each member has, so the dashboard can say
// so before the removal.
import { z } from 'zod';
import type { Actor, ServiceDeps } from '../context';
import { AppError } from '../errors';
import { forgetCachedKeys } from '../services/api-keys';
import { auditSql } from '../services/audit';
import { type Queryable, withTransaction } from '../sql/tx';
import { ROLES, type Role, requireRole } from './roles';

type UserActor = Extract<Actor, { type: 'user' }>;

export interface MemberView {
  userId: string;
  email: string;
  name: string | null;
  role: Role;
  joinedAt: string;
  /** API keys this member created in the tenant that still work (revoked with the member) */
  activeApiKeys: number;
}

export const ChangeRoleInput = z.strictObject({ userId: z.string().min(1).max(100), role: z.enum(ROLES) });
export const RemoveMemberInput = z.strictObject({ userId: z.string().min(1).max(100) });

export async function listMembers(deps: ServiceDeps, actor: UserActor): Promise<MemberView[]> {
  const { rows } = await deps.pool.query<{
    user_id: string;
    email: string;
    name: string | null;
    role: Role;
    created_at: Date;
    active_api_keys: number;
  }>(
    `SELECT m.user_id, u.email, u.name, m.role, m.created_at,
            (SELECT count(*)::int FROM api_keys k
              WHERE k.tenant_id = m.tenant_id AND k.created_by = m.user_id AND k.revoked_at IS NULL
                AND (k.expires_at IS NULL OR k.expires_at > now())) AS active_api_keys
       FROM memberships m JOIN users u ON u.id = m.user_id
      WHERE m.tenant_id = $1
      ORDER BY array_position(ARRAY['owner','admin','member','viewer'], m.role), lower(u.email)`,
    [actor.tenantId],
  );
  return rows.map((r) => ({
    userId: r.user_id,
    email: r.email,
    name: r.name,
    role: r.role,
    joinedAt: r.created_at.toISOString(),
    activeApiKeys: r.active_api_keys,
  }));
}

async function lockMembers(db: Queryable, tenantId: string): Promise<Map<string, Role>> {
  const { rows } = await db.query<{ user_id: string; role: Role }>(
    'SELECT user_id, role FROM memberships WHERE tenant_id = $1 ORDER BY user_id FOR UPDATE',
    [tenantId],
  );
  return new Map(rows.map((r) => [r.user_id, r.role]));
}

function ownersOf(members: Map<string, Role>): number {
  return [...members.values()].filter((r) => r === 'owner').length;
}

export async function changeMemberRole(
  deps: ServiceDeps,
  actor: UserActor,
  input: z.output<typeof ChangeRoleInput>,
): Promise<MemberView[]> {
  requireRole(actor.role, 'admin', 'changing roles');
  await withTransaction(deps.pool, async (db) => {
    const members = await lockMembers(db, actor.tenantId);
    const current = members.get(input.userId);
    if (!current) throw AppError.notFound('Member');
    if (current === input.role) return;
    if ((current === 'owner' || input.role === 'owner') && actor.role !== 'owner') {
      throw new AppError('forbidden', 'only an owner can make someone an owner or change an owner');
    }
    if (current === 'owner' && ownersOf(members) === 1) {
      throw new AppError('conflict', 'this is the only owner; make someone else an owner first');
    }
    await db.query('UPDATE memberships SET role = $3 WHERE tenant_id = $1 AND user_id = $2', [
      actor.tenantId,
      input.userId,
      input.role,
    ]);
    await auditSql(db, actor, 'member.role_changed', 'user', input.userId, { from: current, to: input.role });
  });
  return listMembers(deps, actor);
}

/**
 * Removes a member; anyone may remove themselves (leave), except the last owner. The API keys
 * they created in this tenant are revoked with them; answers how many.
 */
export async function removeMember(
  deps: ServiceDeps,
  actor: UserActor,
  userId: string,
): Promise<{ revokedApiKeys: number }> {
  const self = userId === actor.id;
  if (!self) requireRole(actor.role, 'admin', 'removing members');
  const revokedKeyIds = await withTransaction(deps.pool, async (db) => {
    const members = await lockMembers(db, actor.tenantId);
    const current = members.get(userId);
    if (!current) throw AppError.notFound('Member');
    if (current === 'owner' && !self && actor.role !== 'owner')
      throw new AppError('forbidden', 'only an owner can remove an owner');
    if (current === 'owner' && ownersOf(members) === 1) {
      throw new AppError('conflict', 'the only owner cannot leave; make someone else an owner first');
    }
    await db.query('DELETE FROM memberships WHERE tenant_id = $1 AND user_id = $2', [actor.tenantId, userId]);
    const revoked = await db.query<{ id: string }>(
      `UPDATE api_keys SET revoked_at = now()
        WHERE tenant_id = $1 AND created_by = $2 AND revoked_at IS NULL
        RETURNING id`,
      [actor.tenantId, userId],
    );
    const ids = revoked.rows.map((r) => r.id);
    await auditSql(db, actor, self ? 'member.left' : 'member.removed', 'user', userId, {
      role: current,
      revokedApiKeys: ids,
    });
    return ids;
  });
  forgetCachedKeys(deps, revokedKeyIds);
  return { revokedApiKeys: revokedKeyIds.length };
}
