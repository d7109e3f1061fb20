// API keys: creation (the plaintext is shown once), listing, revocation, and authentication
// of a bearer token. Only a SHA-256 of each key is stored; lookup is by that hash.
import { newId } from '@belfry/core';
import { z } from 'zod';
import type { Actor, ServiceDeps } from '../context';
import { AppError } from '../errors';
import { InstantInput } from '../schemas/common';
import { storableText } from '../schemas/text';
import { parseInput } from '../schemas/validate';
import { API_KEY_SCOPES, generateApiKey, hashApiKey, isWellFormedApiKey } from '../security/api-key-format';
import { authorize } from '../security/scopes';
import { audit } from './audit';
import { checkApiKeyQuota, prismaQueryable } from './limits';
import { perPool } from './per-pool';
import { type BucketLimits, type RateLimitDecision, takeRequestToken } from './rate-limit';

export const ApiKeyCreateInput = z.strictObject({
  name: z.string().trim().min(1).max(200).superRefine(storableText),
  scopes: z
    .array(z.enum(API_KEY_SCOPES))
    .min(1, { error: 'must grant at least one scope' })
    .transform((s) => [...new Set(s)]),
  expiresAt: z.union([InstantInput, z.date()]).optional(),
});
export type ApiKeyCreateInput = z.output<typeof ApiKeyCreateInput>;

export interface ApiKeyView {
  id: string;
  name: string;
  prefix: string;
  scopes: string[];
  createdBy: string | null;
  createdAt: string;
  lastUsedAt: string | null;
  expiresAt: string | null;
  revokedAt: string | null;
}

type ApiKeyRecord = Awaited<ReturnType<ServiceDeps['prisma']['apiKey']['findFirstOrThrow']>>;

function toView(k: ApiKeyRecord): ApiKeyView {
  return {
    id: k.id,
    name: k.name,
    prefix: k.prefix,
    scopes: k.scopes,
    createdBy: k.createdBy,
    createdAt: k.createdAt.toISOString(),
    lastUsedAt: k.lastUsedAt?.toISOString() ?? null,
    expiresAt: k.expiresAt?.toISOString() ?? null,
    revokedAt: k.revokedAt?.toISOString() ?? null,
  };
}

export async function createApiKey(
  deps: ServiceDeps,
  actor: Actor,
  raw: z.input<typeof ApiKeyCreateInput>,
): Promise<{ apiKey: ApiKeyView; key: string }> {
  authorize(actor, 'admin');
  const input = parseInput(ApiKeyCreateInput, raw);
  if (input.expiresAt && input.expiresAt <= deps.clock.now()) {
    throw AppError.invalid([{ path: 'expiresAt', message: 'must be in the future' }]);
  }
  const generated = generateApiKey();
  const created = await deps.prisma.$transaction(async (tx) => {
    await checkApiKeyQuota(prismaQueryable(tx), actor.tenantId);
    const row = await tx.apiKey.create({
      data: {
        id: newId('key'),
        tenantId: actor.tenantId,
        name: input.name,
        prefix: generated.prefix,
        keyHash: new Uint8Array(generated.hash),
        scopes: input.scopes,
        createdBy: actor.type === 'user' ? actor.id : null,
        expiresAt: input.expiresAt ?? null,
        createdAt: deps.clock.now(),
      },
    });
    await audit(tx, actor, 'api_key.created', 'api_key', row.id, { name: row.name, scopes: row.scopes });
    return row;
  });
  return { apiKey: toView(created), key: generated.key };
}

/** Newest first; revoked and expired keys included (the UI shows them as such). */
export async function listApiKeys(deps: ServiceDeps, actor: Actor): Promise<ApiKeyView[]> {
  authorize(actor, 'admin');
  const rows = await deps.prisma.apiKey.findMany({
    where: { tenantId: actor.tenantId },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
  });
  return rows.map(toView);
}

/** Idempotent: revoking a revoked key answers it unchanged. */
export async function revokeApiKey(deps: ServiceDeps, actor: Actor, keyId: string): Promise<ApiKeyView> {
  authorize(actor, 'admin');
  const view = await deps.prisma.$transaction(async (tx) => {
    const key = await tx.apiKey.findFirst({ where: { id: keyId, tenantId: actor.tenantId } });
    if (!key) throw AppError.notFound('API key');
    if (key.revokedAt) return toView(key);
    const revoked = await tx.apiKey.update({ where: { id: key.id }, data: { revokedAt: deps.clock.now() } });
    await audit(tx, actor, 'api_key.revoked', 'api_key', key.id, { name: key.name });
    return toView(revoked);
  });
  // This process refuses the key at once; other processes within KEY_CACHE_MS.
  forgetCachedKeys(deps, [keyId]);
  return view;
}

export interface Authenticated {
  actor: Extract<Actor, { type: 'api_key' }>;
  rateLimit: RateLimitDecision;
  /** the key's rate-limit bucket, for requests that count as more than one */
  bucket: { key: string; limits: BucketLimits };
}

const LAST_USED_GRANULARITY_MS = 60_000;

/**
 * How long a process keeps a key it has looked up (docs/security.md, "API keys"): every request
 * used to read the key and its tenant's limits from the database. A revoked key is refused at
 * once by the process that revoked it and within this long by every other; so is a key of a
 * tenant whose rate limit changed, with the new limit. Expiry is checked on every request.
 */
export const KEY_CACHE_MS = 5_000;
const KEY_CACHE_MAX = 10_000;

interface KeyRow {
  id: string;
  tenant_id: string;
  scopes: string[];
  expires_at: Date | null;
  revoked_at: Date | null;
  last_used_at: Date | null;
  rate_limit_per_second: number;
  rate_limit_burst: number;
}

interface KeyCacheEntry {
  /** when the lookup started (the process's clock) */
  at: number;
  pending: Promise<KeyRow | null>;
  /** the key, once looked up (a usable one) */
  row?: KeyRow;
}

/**
 * Per database (a pool): the keys looked up lately, by the hex of their hash; unknown and
 * revoked keys are not kept past the lookup that found them so. On globalThis, so that every
 * copy of this module in a process (a bundler may make one per route) sees one cache, and a
 * revocation clears it for all.
 */
type KeyCache = Map<string, KeyCacheEntry>;
const keyCaches = perPool<KeyCacheEntry>('belfry.apiKeyCaches');

function keyCache(deps: ServiceDeps): KeyCache {
  return keyCaches(deps.pool);
}

/** After a revocation commits: this process refuses the keys at once (others within KEY_CACHE_MS). */
export function forgetCachedKeys(deps: ServiceDeps, keyIds: readonly string[]): void {
  if (!keyIds.length) return;
  const ids = new Set(keyIds);
  const cache = keyCache(deps);
  // Lookups still running may be of these keys: they go too.
  for (const [hash, entry] of cache) if (!entry.row || ids.has(entry.row.id)) cache.delete(hash);
}

async function lookUpKey(deps: ServiceDeps, token: string, now: number): Promise<KeyRow | null> {
  const hash = hashApiKey(token);
  const cache = keyCache(deps);
  const id = hash.toString('hex');
  const cached = cache.get(id);
  if (cached && now - cached.at < KEY_CACHE_MS && now >= cached.at) return cached.row ?? cached.pending;
  // One lookup per key at a time: the requests that arrive while it runs wait for it.
  const entry: KeyCacheEntry = {
    at: now,
    pending: deps.pool
      .query<KeyRow>(
        `SELECT k.id, k.tenant_id, k.scopes, k.expires_at, k.revoked_at, k.last_used_at,
                t.rate_limit_per_second, t.rate_limit_burst
           FROM api_keys k JOIN tenants t ON t.id = k.tenant_id
          WHERE k.key_hash = $1`,
        [hash],
      )
      .then(({ rows }) => {
        const row = rows[0] ?? null;
        if (row && !row.revoked_at) entry.row = row;
        else if (cache.get(id) === entry) cache.delete(id);
        return row;
      })
      .catch((err: unknown) => {
        if (cache.get(id) === entry) cache.delete(id);
        throw err;
      }),
  };
  cache.delete(id);
  if (cache.size >= KEY_CACHE_MAX) {
    const oldest = cache.keys().next().value;
    if (oldest !== undefined) cache.delete(oldest);
  }
  cache.set(id, entry);
  return entry.pending;
}

/**
 * Resolves a bearer token to its key's actor and takes one token from the key's rate-limit
 * bucket. Every way a key can be unusable answers the same 401, so callers learn nothing
 * about which keys exist. A rate-limited request throws 429 with Retry-After.
 */
export async function authenticateApiKey(deps: ServiceDeps, token: string): Promise<Authenticated> {
  const denied = () => new AppError('unauthenticated', 'a valid API key is required (Authorization: Bearer bfy_...)');
  if (!isWellFormedApiKey(token)) throw denied();
  const now = deps.clock.now();
  const key = await lookUpKey(deps, token, now.getTime());
  if (!key || key.revoked_at || (key.expires_at && key.expires_at <= now)) throw denied();

  const bucket = {
    key: `key:${key.id}`,
    limits: { perSecond: key.rate_limit_per_second, burst: key.rate_limit_burst },
  };
  const rateLimit = await takeRequestToken(deps.pool, bucket.key, bucket.limits);
  if (!rateLimit.allowed) {
    throw new AppError('rate_limited', `rate limit of ${key.rate_limit_per_second} requests per second exceeded`, {
      retryAfterSeconds: rateLimit.retryAfterSeconds,
    });
  }
  // At most one write per key per minute, however busy the key is.
  if (!key.last_used_at || now.getTime() - key.last_used_at.getTime() >= LAST_USED_GRANULARITY_MS) {
    // Noted first, so the requests that share this cached key do not all write it.
    key.last_used_at = now;
    await deps.pool.query(
      `UPDATE api_keys SET last_used_at = $2
        WHERE id = $1 AND (last_used_at IS NULL OR last_used_at <= $2::timestamptz - interval '1 minute')`,
      [key.id, now],
    );
  }
  return {
    actor: { type: 'api_key', id: key.id, tenantId: key.tenant_id, scopes: key.scopes },
    rateLimit,
    bucket,
  };
}
