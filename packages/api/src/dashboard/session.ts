// Who is signed in to the dashboard and which tenant they act in. The session cookie only
// names a user and the tenant they last picked; both are checked against the database on
// every request, so a removed member or a deleted user loses access at once.
import type { Actor, ServiceDeps } from '../context';
import { randomBytes } from 'node:crypto';
import { hashPassword, verifyPassword } from '../security/passwords';
import type { Role } from './roles';

export interface MembershipView {
  tenantId: string;
  tenantName: string;
  slug: string;
  role: Role;
}

export interface DashboardSession {
  /** operator: runs the deployment (users.is_operator), sees cluster-wide numbers */
  user: { id: string; email: string; name: string | null; operator: boolean };
  memberships: MembershipView[];
}

export async function loadSession(deps: ServiceDeps, userId: string): Promise<DashboardSession | null> {
  const { rows } = await deps.pool.query<{
    id: string;
    email: string;
    name: string | null;
    is_operator: boolean;
    tenant_id: string | null;
    tenant_name: string | null;
    slug: string | null;
    role: Role | null;
  }>(
    `SELECT u.id, u.email, u.name, u.is_operator, m.tenant_id, t.name AS tenant_name, t.slug, m.role
       FROM users u
       LEFT JOIN memberships m ON m.user_id = u.id
       LEFT JOIN tenants t ON t.id = m.tenant_id
      WHERE u.id = $1
      ORDER BY m.created_at, t.name`,
    [userId],
  );
  const first = rows[0];
  if (!first) return null;
  return {
    user: { id: first.id, email: first.email, name: first.name, operator: first.is_operator },
    memberships: rows
      .filter((r) => r.tenant_id !== null)
      .map((r) => ({
        tenantId: r.tenant_id as string,
        tenantName: r.tenant_name as string,
        slug: r.slug as string,
        role: r.role as Role,
      })),
  };
}

/** The membership to act in: the one asked for when the user has it, else their first. */
export function pickMembership(session: DashboardSession, requestedTenantId: string | null): MembershipView | null {
  return session.memberships.find((m) => m.tenantId === requestedTenantId) ?? session.memberships[0] ?? null;
}

export function userActor(session: DashboardSession, membership: MembershipView): Extract<Actor, { type: 'user' }> {
  return { type: 'user', id: session.user.id, tenantId: membership.tenantId, role: membership.role };
}

// A real Argon2id hash of a random string: verifying against it costs what a real check
// costs, so "no such user" and "wrong password" take the same time.
let dummyHash: Promise<string> | undefined;

/** The user with this email and password, or null (unknown email and wrong password look alike). */
export async function authenticateUser(
  deps: ServiceDeps,
  email: string,
  password: string,
): Promise<{ id: string; email: string; name: string | null } | null> {
  const normalized = email.trim().toLowerCase();
  if (!normalized || !password || password.length > 1024) return null;
  const { rows } = await deps.pool.query<{ id: string; email: string; name: string | null; password_hash: string }>(
    'SELECT id, email, name, password_hash FROM users WHERE lower(email) = $1',
    [normalized],
  );
  const user = rows[0];
  dummyHash ??= hashPassword(randomBytes(16).toString('hex'));
  const ok = await verifyPassword(user?.password_hash ?? (await dummyHash), password);
  return user && ok ? { id: user.id, email: user.email, name: user.name } : null;
}
