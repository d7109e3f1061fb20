// Dashboard accounts: sign-up (a new user and a new tenant they own, through createTenant),
// a further workspace for a signed-in user, and the input rules both share.
import { z } from 'zod';
import type { ServiceDeps } from '../context';
import { AppError } from '../errors';
import { createTenant, insertTenant } from '../services/tenants';
import { audit } from '../services/audit';
import { checkWorkspaceQuota, prismaQueryable } from '../services/limits';

export const Email = z
  .string()
  .trim()
  .max(254, { error: 'must be at most 254 characters' })
  .pipe(z.email({ error: 'must be an email address' }))
  .transform((e) => e.toLowerCase());
export const Password = z
  .string()
  .min(10, { error: 'must be at least 10 characters' })
  .max(200, { error: 'must be at most 200 characters' });
export const WorkspaceName = z
  .string()
  .trim()
  .min(1, { error: 'is required' })
  .max(200, { error: 'must be at most 200 characters' });
export const PersonName = z.string().trim().max(200, { error: 'must be at most 200 characters' });

export const SignUpInput = z.strictObject({
  name: PersonName.optional(),
  email: Email,
  password: Password,
  workspaceName: WorkspaceName,
});
export type SignUpInput = z.output<typeof SignUpInput>;

function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown } | null;
  return (
    e?.code === '23505' ||
    e?.code === 'P2002' ||
    (typeof e?.message === 'string' && e.message.includes('users_email_key'))
  );
}

export function emailTaken(): AppError {
  return new AppError('conflict', 'an account with this email already exists', {
    errors: [{ path: 'email', message: 'already has an account; sign in instead' }],
  });
}

/** A new user owning a new tenant; sign-up does not mint an API key (the UI offers one later). */
export async function signUp(deps: ServiceDeps, input: SignUpInput): Promise<{ userId: string; tenantId: string }> {
  try {
    const created = await createTenant(deps, {
      name: input.workspaceName,
      owner: { email: input.email, password: input.password, ...(input.name ? { name: input.name } : {}) },
      apiKey: false,
    });
    return { userId: created.userId as string, tenantId: created.tenantId };
  } catch (err) {
    if (err instanceof AppError && err.code === 'conflict') throw emailTaken();
    if (isUniqueViolation(err)) throw emailTaken();
    throw err;
  }
}

/** Another tenant, owned by a user who is already signed in (one transaction: never a tenant without its owner). */
export async function createWorkspace(deps: ServiceDeps, userId: string, name: string): Promise<{ tenantId: string }> {
  return deps.prisma.$transaction(async (tx) => {
    await checkWorkspaceQuota(prismaQueryable(tx), userId);
    const { tenantId } = await insertTenant(tx, deps.keyring, { name, apiKey: false }, { passwordHash: null });
    await tx.membership.create({ data: { tenantId, userId, role: 'owner' } });
    await audit(tx, { type: 'user', id: userId, tenantId, role: 'owner' }, 'member.added', 'user', userId, {
      role: 'owner',
      via: 'workspace_created',
    });
    return { tenantId };
  });
}
