// Tenants: creation (with an owner, a first API key and a signing secret) and lookup.
import { type Keyring, newId } from '@belfry/core';
import type { ServiceDeps } from '../context';
import { AppError } from '../errors';
import { generateApiKey, type ApiKeyScope, API_KEY_SCOPES } from '../security/api-key-format';
import { hashPassword } from '../security/passwords';
import { createSigningSecret } from './signing-secrets';

export interface CreateTenantInput {
  name: string;
  owner?: { email: string; password: string; name?: string };
  /** create a first API key with these scopes (default: all) */
  apiKey?: { name: string; scopes?: ApiKeyScope[] } | false;
}

export interface CreatedTenant {
  tenantId: string;
  slug: string;
  userId: string | null;
  apiKey: string | null;
  signingSecret: string;
}

export function slugify(name: string): string {
  const base = name
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40);
  return base || 'tenant';
}

type Tx = Parameters<Parameters<ServiceDeps['prisma']['$transaction']>[0]>[0];

export async function createTenant(deps: ServiceDeps, input: CreateTenantInput): Promise<CreatedTenant> {
  const prepared = await prepareTenant(input);
  return deps.prisma.$transaction((tx) => insertTenant(tx, deps.keyring, input, prepared));
}

interface PreparedTenant {
  passwordHash: string | null;
}

export async function prepareTenant(input: CreateTenantInput): Promise<PreparedTenant> {
  return { passwordHash: input.owner ? await hashPassword(input.owner.password) : null };
}

/** Inserts a tenant inside the caller's transaction. */
export async function insertTenant(
  tx: Tx,
  keyring: Keyring,
  input: CreateTenantInput,
  { passwordHash }: PreparedTenant,
): Promise<CreatedTenant> {
  const name = input.name.trim();
  if (name.length < 1 || name.length > 200) {
    throw new AppError('validation', 'tenant name must be 1 to 200 characters', {
      errors: [{ path: 'name', message: 'must be 1 to 200 characters' }],
    });
  }
  const tenantId = newId('ten');
  const slug = `${slugify(name)}-${tenantId.slice(-6).toLowerCase()}`;
  const key = input.apiKey === false ? null : generateApiKey();
  {
    await tx.tenant.create({ data: { id: tenantId, name, slug } });
    let userId: string | null = null;
    if (input.owner && passwordHash) {
      const email = input.owner.email.trim().toLowerCase();
      const existing = await tx.user.findFirst({ where: { email } });
      if (existing) throw new AppError('conflict', `a user with email ${email} already exists`);
      userId = newId('usr');
      await tx.user.create({ data: { id: userId, email, name: input.owner.name ?? null, passwordHash } });
      await tx.membership.create({ data: { tenantId, userId, role: 'owner' } });
    }
    if (key) {
      await tx.apiKey.create({
        data: {
          id: newId('key'),
          tenantId,
          name: input.apiKey ? input.apiKey.name : 'default',
          prefix: key.prefix,
          keyHash: new Uint8Array(key.hash),
          scopes: (input.apiKey && input.apiKey.scopes) || [...API_KEY_SCOPES],
          createdBy: userId,
        },
      });
    }
    const signingSecret = await createSigningSecret(tx, keyring, tenantId);
    await tx.auditLog.create({
      data: {
        tenantId,
        actorType: userId ? 'user' : 'system',
        actorId: userId,
        action: 'tenant.created',
        targetType: 'tenant',
        targetId: tenantId,
      },
    });
    return { tenantId, slug, userId, apiKey: key?.key ?? null, signingSecret };
  }
}
