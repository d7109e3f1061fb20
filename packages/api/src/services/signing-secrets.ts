// Per-tenant webhook signing secrets: sealed at rest, rotated with a 24-hour overlap during
// which deliveries carry both signatures.
import { generateSigningSecret, type Keyring, SIGNING_SECRET_PURPOSE } from '@belfry/core';
import type { ServiceDeps } from '../context';
import type { Actor } from '../context';
import { AppError } from '../errors';
import { authorize } from '../security/scopes';
import { audit } from './audit';

export const ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;

export interface SigningSecretView {
  secret: string;
  previous: string | null;
  previousExpiresAt: string | null;
}

type Tx = Pick<ServiceDeps['prisma'], 'signingSecret'>;

const purpose = (tenantId: string) => ({ tenantId, purpose: SIGNING_SECRET_PURPOSE });

export async function createSigningSecret(tx: Tx, keyring: Keyring, tenantId: string): Promise<string> {
  const secret = generateSigningSecret();
  await tx.signingSecret.create({
    data: { tenantId, currentSecret: new Uint8Array(keyring.seal(secret, purpose(tenantId))) },
  });
  return secret;
}

export async function getSigningSecret(deps: ServiceDeps, tenantId: string): Promise<SigningSecretView> {
  const row = await deps.prisma.signingSecret.findUnique({ where: { tenantId } });
  if (!row) throw AppError.notFound('Signing secret');
  const now = deps.clock.now();
  const previousLive = row.previousSecret && row.previousExpiresAt && row.previousExpiresAt > now;
  return {
    secret: deps.keyring.open(row.currentSecret, purpose(tenantId)),
    previous: previousLive && row.previousSecret ? deps.keyring.open(row.previousSecret, purpose(tenantId)) : null,
    previousExpiresAt: previousLive && row.previousExpiresAt ? row.previousExpiresAt.toISOString() : null,
  };
}

/** The actor's tenant's secret; reading it lets one forge deliveries, so it takes `admin`. */
export async function readSigningSecret(deps: ServiceDeps, actor: Actor): Promise<SigningSecretView> {
  authorize(actor, 'admin');
  return getSigningSecret(deps, actor.tenantId);
}

export async function rotateSigningSecret(deps: ServiceDeps, actor: Actor): Promise<SigningSecretView> {
  authorize(actor, 'admin');
  const now = deps.clock.now();
  const expiresAt = new Date(now.getTime() + ROTATION_OVERLAP_MS);
  const fresh = generateSigningSecret();
  await deps.prisma.$transaction(async (tx) => {
    const rows = await tx.$queryRaw<{ current_secret: Uint8Array }[]>`
      SELECT current_secret FROM signing_secrets WHERE tenant_id = ${actor.tenantId} FOR UPDATE`;
    const current = rows[0];
    if (!current) throw AppError.notFound('Signing secret');
    await tx.signingSecret.update({
      where: { tenantId: actor.tenantId },
      data: {
        currentSecret: new Uint8Array(deps.keyring.seal(fresh, purpose(actor.tenantId))),
        previousSecret: new Uint8Array(current.current_secret),
        previousExpiresAt: expiresAt,
        rotatedAt: now,
      },
    });
    await audit(tx, actor, 'signing_secret.rotated', 'signing_secret', actor.tenantId, {});
  });
  return getSigningSecret(deps, actor.tenantId);
}
