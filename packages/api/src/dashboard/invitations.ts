// Invitations to a tenant. Belfry sends no email: creating one answers a link holding a
// random token (only its SHA-256 is stored), which the admin passes on. The invitee signs
// in, or signs up with the invited address, and accepts; the token works once, for 7 days,
// and only for the address it names.
import { createHash, randomBytes } from 'node:crypto';
import { newId } from '@belfry/core';
import { z } from 'zod';
import type { Actor, ServiceDeps } from '../context';
import { AppError } from '../errors';
import { hashPassword } from '../security/passwords';
import { auditSql } from '../services/audit';
import { type Queryable, withTransaction } from '../sql/tx';
import { Email, emailTaken, Password, PersonName } from './accounts';
import { INVITABLE_ROLES, type Role, requireRole } from './roles';

type UserActor = Extract<Actor, { type: 'user' }>;

export const INVITATION_TTL_MS = 7 * 24 * 60 * 60 * 1000;

export const InviteInput = z.strictObject({ email: Email, role: z.enum(INVITABLE_ROLES) });
export const InvitationToken = z.string().regex(/^[A-Za-z0-9_-]{43}$/, { error: 'is not an invitation token' });
export const SignUpWithInvitationInput = z.strictObject({
  token: InvitationToken,
  name: PersonName.optional(),
  password: Password,
});

export interface InvitationView {
  id: string;
  email: string;
  role: Role;
  invitedBy: string | null;
  createdAt: string;
  expiresAt: string;
  expired: boolean;
}

function hashToken(token: string): Buffer {
  return createHash('sha256').update(token).digest();
}

interface InvitationRow {
  id: string;
  tenant_id: string;
  tenant_name: string;
  email: string;
  role: Role;
  invited_by_email: string | null;
  created_at: Date;
  expires_at: Date;
  accepted_at: Date | null;
}

const SELECT = `SELECT i.id, i.tenant_id, t.name AS tenant_name, i.email, i.role, u.email AS invited_by_email,
                       i.created_at, i.expires_at, i.accepted_at
                  FROM invitations i JOIN tenants t ON t.id = i.tenant_id LEFT JOIN users u ON u.id = i.invited_by`;

function toView(r: InvitationRow, now: Date): InvitationView {
  return {
    id: r.id,
    email: r.email,
    role: r.role,
    invitedBy: r.invited_by_email,
    createdAt: r.created_at.toISOString(),
    expiresAt: r.expires_at.toISOString(),
    expired: r.expires_at <= now,
  };
}

/** Creates an invitation and answers its token (shown once); a newer one replaces a pending one to the same address. */
export async function createInvitation(
  deps: ServiceDeps,
  actor: UserActor,
  input: z.output<typeof InviteInput>,
): Promise<{ invitation: InvitationView; token: string }> {
  requireRole(actor.role, 'admin', 'inviting members');
  const now = deps.clock.now();
  const token = randomBytes(32).toString('base64url');
  const id = newId('inv', now);
  return withTransaction(deps.pool, async (db) => {
    const { rows: existing } = await db.query(
      `SELECT 1 FROM memberships m JOIN users u ON u.id = m.user_id WHERE m.tenant_id = $1 AND lower(u.email) = $2`,
      [actor.tenantId, input.email],
    );
    if (existing.length) {
      throw new AppError('conflict', `${input.email} is already a member`, {
        errors: [{ path: 'email', message: 'is already a member of this workspace' }],
      });
    }
    await db.query('DELETE FROM invitations WHERE tenant_id = $1 AND lower(email) = $2 AND accepted_at IS NULL', [
      actor.tenantId,
      input.email,
    ]);
    await db.query(
      `INSERT INTO invitations (id, tenant_id, email, role, token_hash, invited_by, expires_at, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [
        id,
        actor.tenantId,
        input.email,
        input.role,
        hashToken(token),
        actor.id,
        new Date(now.getTime() + INVITATION_TTL_MS),
        now,
      ],
    );
    await auditSql(db, actor, 'invitation.created', 'invitation', id, { email: input.email, role: input.role });
    const { rows } = await db.query<InvitationRow>(`${SELECT} WHERE i.id = $1`, [id]);
    return { invitation: toView(rows[0] as InvitationRow, now), token };
  });
}

/** Invitations not accepted yet, expired ones included (shown as such). */
export async function listInvitations(deps: ServiceDeps, actor: UserActor): Promise<InvitationView[]> {
  requireRole(actor.role, 'admin', 'seeing invitations');
  const { rows } = await deps.pool.query<InvitationRow>(
    `${SELECT} WHERE i.tenant_id = $1 AND i.accepted_at IS NULL ORDER BY i.created_at DESC LIMIT 200`,
    [actor.tenantId],
  );
  const now = deps.clock.now();
  return rows.map((r) => toView(r, now));
}

export async function revokeInvitation(deps: ServiceDeps, actor: UserActor, invitationId: string): Promise<void> {
  requireRole(actor.role, 'admin', 'revoking invitations');
  await withTransaction(deps.pool, async (db) => {
    const { rowCount } = await db.query(
      'DELETE FROM invitations WHERE id = $1 AND tenant_id = $2 AND accepted_at IS NULL',
      [invitationId, actor.tenantId],
    );
    if (!rowCount) throw AppError.notFound('Invitation');
    await auditSql(db, actor, 'invitation.revoked', 'invitation', invitationId, {});
  });
}

export interface InvitationPreview {
  tenantName: string;
  email: string;
  role: Role;
  expiresAt: string;
  state: 'pending' | 'expired' | 'accepted';
  /** whether the invited address has an account already (sign in) or not (sign up) */
  hasAccount: boolean;
}

/** What the invitation page shows before anyone is signed in; the token is the credential. */
export async function previewInvitation(deps: ServiceDeps, token: string): Promise<InvitationPreview> {
  const { rows } = await deps.pool.query<InvitationRow & { has_account: boolean }>(
    `${SELECT.replace('SELECT', 'SELECT EXISTS (SELECT 1 FROM users x WHERE lower(x.email) = lower(i.email)) AS has_account,')}
      WHERE i.token_hash = $1`,
    [hashToken(token)],
  );
  const r = rows[0];
  if (!r) throw AppError.notFound('Invitation');
  const now = deps.clock.now();
  return {
    tenantName: r.tenant_name,
    email: r.email,
    role: r.role,
    expiresAt: r.expires_at.toISOString(),
    state: r.accepted_at ? 'accepted' : r.expires_at <= now ? 'expired' : 'pending',
    hasAccount: r.has_account,
  };
}

async function claim(db: Queryable, token: string, email: string, now: Date): Promise<InvitationRow> {
  const { rows } = await db.query<InvitationRow>(`${SELECT} WHERE i.token_hash = $1 FOR UPDATE OF i`, [
    hashToken(token),
  ]);
  const inv = rows[0];
  if (!inv) throw AppError.notFound('Invitation');
  if (inv.accepted_at) throw new AppError('conflict', 'this invitation has already been used');
  if (inv.expires_at <= now) throw new AppError('conflict', 'this invitation has expired; ask for a new one');
  if (inv.email.toLowerCase() !== email.toLowerCase()) {
    throw new AppError('forbidden', `this invitation is for ${inv.email}; sign in with that address to accept it`);
  }
  return inv;
}

async function join(db: Queryable, inv: InvitationRow, userId: string, now: Date): Promise<void> {
  await db.query(
    `INSERT INTO memberships (tenant_id, user_id, role, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING`,
    [inv.tenant_id, userId, inv.role, now],
  );
  await db.query('UPDATE invitations SET accepted_at = $2 WHERE id = $1', [inv.id, now]);
  await auditSql(
    db,
    { type: 'user', id: userId, tenantId: inv.tenant_id, role: inv.role },
    'invitation.accepted',
    'invitation',
    inv.id,
    {
      role: inv.role,
    },
  );
}

/** The signed-in user joins the invitation's tenant (their address must be the invited one). */
export async function acceptInvitation(
  deps: ServiceDeps,
  user: { id: string; email: string },
  token: string,
): Promise<{ tenantId: string }> {
  const now = deps.clock.now();
  return withTransaction(deps.pool, async (db) => {
    const inv = await claim(db, token, user.email, now);
    await join(db, inv, user.id, now);
    return { tenantId: inv.tenant_id };
  });
}

/** A new account for the invited address, joining the tenant in the same transaction. */
export async function signUpWithInvitation(
  deps: ServiceDeps,
  input: z.output<typeof SignUpWithInvitationInput>,
): Promise<{ email: string; tenantId: string }> {
  const now = deps.clock.now();
  const passwordHash = await hashPassword(input.password);
  const preview = await previewInvitation(deps, input.token);
  return withTransaction(deps.pool, async (db) => {
    const inv = await claim(db, input.token, preview.email, now);
    const userId = newId('usr', now);
    try {
      await db.query(
        'INSERT INTO users (id, email, name, password_hash, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $5)',
        [userId, inv.email.toLowerCase(), input.name || null, passwordHash, now],
      );
    } catch (err) {
      if ((err as { code?: unknown }).code === '23505') throw emailTaken();
      throw err;
    }
    await join(db, inv, userId, now);
    return { email: inv.email.toLowerCase(), tenantId: inv.tenant_id };
  });
}
