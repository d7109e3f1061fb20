// Idempotency-Key for job creation, one job or a batch. The key row is claimed in the same
// transaction that inserts the jobs, so two concurrent requests with one key serialise on the key's primary
// key: the second waits for the first to commit and then finds its job. Keys expire after
// 24 hours, after which the same key may create a new job.
import { createHash } from 'node:crypto';
import { AppError } from '../errors';
import type { Queryable } from '../sql/tx';

export const IDEMPOTENCY_TTL_HOURS = 24;
const KEY_SHAPE = /^[\x20-\x7e]{1,255}$/;

export function checkIdempotencyKey(key: string): string {
  if (!KEY_SHAPE.test(key) || key.trim() === '') {
    throw AppError.invalid([{ path: 'Idempotency-Key', message: 'must be 1 to 255 printable ASCII characters' }]);
  }
  return key;
}

/** JSON with object keys sorted at every level, so equal requests hash equally. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v && typeof v === 'object' && !Array.isArray(v)) {
      return Object.fromEntries(
        Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
      );
    }
    return v;
  });
}

export function requestHash(value: unknown): Buffer {
  return createHash('sha256').update(canonicalJson(value)).digest();
}

export type IdempotencyClaim = { kind: 'claimed' } | { kind: 'existing'; jobIds: string[] };

/**
 * Claims `key` for `jobIds` (one job, or a batch's in order). Answers `existing` with the jobs
 * an earlier request (same body) created; throws 422 when the key was used with a different body.
 */
export async function claimIdempotencyKey(
  db: Queryable,
  claim: { tenantId: string; key: string; hash: Buffer; jobIds: readonly string[]; now: Date },
): Promise<IdempotencyClaim> {
  const inserted = await db.query(
    `INSERT INTO idempotency_keys AS k (tenant_id, key, request_hash, job_id, job_ids, created_at)
     VALUES ($1, $2, $3, $4, $6, $5)
     ON CONFLICT (tenant_id, key) DO UPDATE
        SET request_hash = EXCLUDED.request_hash, job_id = EXCLUDED.job_id, job_ids = EXCLUDED.job_ids,
            created_at = EXCLUDED.created_at
      WHERE k.created_at <= $5::timestamptz - make_interval(hours => ${IDEMPOTENCY_TTL_HOURS})
     RETURNING job_id`,
    // A single create leaves job_ids empty (job_id says it all).
    [claim.tenantId, claim.key, claim.hash, claim.jobIds[0], claim.now, claim.jobIds.length > 1 ? claim.jobIds : []],
  );
  if (inserted.rowCount) return { kind: 'claimed' };
  // READ COMMITTED: this statement sees the row the conflicting transaction committed.
  const { rows } = await db.query<{ request_hash: Buffer; job_id: string; job_ids: string[] }>(
    'SELECT request_hash, job_id, job_ids FROM idempotency_keys WHERE tenant_id = $1 AND key = $2',
    [claim.tenantId, claim.key],
  );
  const row = rows[0];
  if (!row) throw new AppError('conflict', 'the Idempotency-Key is in use by a request that is still running; retry');
  if (!Buffer.from(row.request_hash).equals(claim.hash)) {
    throw new AppError('unprocessable', 'this Idempotency-Key was already used with a different request body');
  }
  return { kind: 'existing', jobIds: row.job_ids.length ? row.job_ids : [row.job_id] };
}
