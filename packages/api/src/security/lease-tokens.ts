// Pull-queue lease tokens: what a claim hands a worker to prove, in heartbeat and complete,
// that it holds the lease of one attempt of one run. The token names (run, scheduled time,
// attempt, worker) and is MACed with a key derived from the deployment's encryption key, so
// every web node can check it without storing it, and nobody can mint one. It is fenced by
// the run row itself: a later claim (a new attempt), a cancel or the reaper make it stale.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { PullLease } from '@belfry/db';

function macKey(encryptionKey: Buffer): Buffer {
  return createHmac('sha256', encryptionKey).update('belfry pull-queue lease token v1').digest();
}

function mac(encryptionKey: Buffer, body: string): Buffer {
  return createHmac('sha256', macKey(encryptionKey)).update(body).digest();
}

export function issueLeaseToken(
  encryptionKey: Buffer,
  lease: Omit<PullLease, 'tenantId'> & { tenantId: string },
): string {
  const body = Buffer.from(
    JSON.stringify([lease.runId, lease.scheduledTime.getTime(), lease.attempt, lease.worker, lease.tenantId]),
  ).toString('base64url');
  return `${body}.${mac(encryptionKey, body).toString('base64url')}`;
}

/** The lease a token names, or null for anything that is not a token this deployment issued. */
export function readLeaseToken(encryptionKey: Buffer, token: string): PullLease | null {
  const dot = token.indexOf('.');
  if (dot <= 0) return null;
  const body = token.slice(0, dot);
  const given = Buffer.from(token.slice(dot + 1), 'base64url');
  const expected = mac(encryptionKey, body);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
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
