// Pull-queue lease tokens: what a claim hands a worker to prove, in heartbeat and complete,
// that it holds the lease of one attempt of one run. The token names (run, scheduled time,
// attempt, worker, tenant) and is MACed with a key derived from the deployment's keyring, so
// every web node can check it without storing it, and nobody can mint one. It is fenced by
// the run row itself: a later claim (a new attempt), a cancel or the reaper make it stale.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Keyring } from '@belfry/core';
import type { PullLease } from '@belfry/db';

const PURPOSE = 'pull-lease-token';
// Deriving is not free (scrypt for a passphrase): once per keyring.
const derived = new WeakMap<Keyring, Buffer[]>();

function keysOf(keyring: Keyring): Buffer[] {
  let keys = derived.get(keyring);
  if (!keys) {
    keys = keyring.macKeys(PURPOSE);
    derived.set(keyring, keys);
  }
  return keys;
}

/**
 * Derives the keyring's lease-token keys now rather than on the first claim, which otherwise
 * pays for the derivation (scrypt, for a passphrase) while workers wait on it.
 */
export function prepareLeaseTokens(keyring: Keyring): void {
  keysOf(keyring);
}

function mac(key: Buffer, body: string): Buffer {
  return createHmac('sha256', key).update(body).digest();
}

export function issueLeaseToken(keyring: Keyring, lease: PullLease): string {
  const body = Buffer.from(
    JSON.stringify([lease.runId, lease.scheduledTime.getTime(), lease.attempt, lease.worker, lease.tenantId]),
  ).toString('base64url');
  return `${body}.${mac(keysOf(keyring)[0] as Buffer, body).toString('base64url')}`;
}

/** The lease a token names, or null for anything that is not a token this deployment issued. */
export function readLeaseToken(keyring: Keyring, token: string): PullLease | null {
  const dot = token.indexOf('.');
  if (dot <= 0) return null;
  const body = token.slice(0, dot);
  const given = Buffer.from(token.slice(dot + 1), 'base64url');
  const valid = keysOf(keyring).some((key) => {
    const expected = mac(key, body);
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  if (!valid) return null;
  try {
    const [runId, scheduledMs, attempt, worker, tenantId] = JSON.parse(Buffer.from(body, 'base64url').toString());
    if (
      typeof runId !== 'string' ||
      typeof scheduledMs !== 'number' ||
      typeof attempt !== 'number' ||
      typeof worker !== 'string' ||
      typeof tenantId !== 'string'
    )
      return null;
    return { runId, scheduledTime: new Date(scheduledMs), attempt, worker, tenantId };
  } catch {
    return null;
  }
}
