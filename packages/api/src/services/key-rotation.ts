// Re-sealing every secret at rest under the keyring's current key (`belfry admin
// rotate-encryption-key`): signing secrets, job targets' write-only fields and alert channel
// configurations. Run it with the new key as BELFRY_ENCRYPTION_KEY and the old one in
// BELFRY_DECRYPTION_KEYS; afterwards the old key can be dropped. It also upgrades what older
// releases wrote: the legacy envelope format, and targets whose write-only fields were stored
// in the clear. Batched, each batch in its own transaction under row locks, so it runs beside
// live traffic; idempotent, so an interrupted run is simply started again.
import { ALERT_CHANNEL_PURPOSE, SIGNING_SECRET_PURPOSE } from '@belfry/core';
import { revealTarget, sealTarget, type StoredTarget } from '@belfry/handlers/schemas';
import type { ServiceDeps } from '../context';
import { type Queryable, withTransaction } from '../sql/tx';

export interface RotationCount {
  /** sealed values re-sealed under the current key */
  resealed: number;
  /** values that were already under the current key */
  current: number;
  /** values no configured key opens (left as they are) */
  failed: number;
}

export interface RotationReport {
  keyId: string;
  signingSecrets: RotationCount;
  targets: RotationCount;
  alertChannels: RotationCount;
}

const DEFAULT_BATCH = 200;
const emptyCount = (): RotationCount => ({ resealed: 0, current: 0, failed: 0 });

/** Re-seals everything not under the current key. `failed` > 0 means some key is missing from the ring. */
export async function rotateEncryptionKey(
  deps: Pick<ServiceDeps, 'pool' | 'keyring' | 'log'>,
  options: { batchSize?: number } = {},
): Promise<RotationReport> {
  const batch = options.batchSize ?? DEFAULT_BATCH;
  return {
    keyId: deps.keyring.currentKeyId,
    signingSecrets: await rotateSigningSecrets(deps, batch),
    targets: await rotateTargets(deps, batch),
    alertChannels: await rotateAlertChannels(deps, batch),
  };
}

async function rotateSigningSecrets(deps: Pick<ServiceDeps, 'pool' | 'keyring' | 'log'>, batch: number) {
  const count = emptyCount();
  const { keyring } = deps;
  let after = '';
  for (;;) {
    const done = await withTransaction(deps.pool, async (db: Queryable) => {
      const { rows } = await db.query<{ tenant_id: string; current_secret: Buffer; previous_secret: Buffer | null }>(
        `SELECT tenant_id, current_secret, previous_secret FROM signing_secrets
          WHERE tenant_id > $1 ORDER BY tenant_id LIMIT $2 FOR UPDATE`,
        [after, batch],
      );
      for (const row of rows) {
        const context = { tenantId: row.tenant_id, purpose: SIGNING_SECRET_PURPOSE };
        const reseal = (sealed: Buffer | null): Buffer | null => {
          if (!sealed) return null;
          if (keyring.isCurrent(sealed)) {
            count.current++;
            return sealed;
          }
          count.resealed++;
          return keyring.seal(keyring.open(sealed, context), context);
        };
        try {
          const current = reseal(row.current_secret);
          const previous = reseal(row.previous_secret);
          if (current !== row.current_secret || previous !== row.previous_secret) {
            await db.query(
              'UPDATE signing_secrets SET current_secret = $2, previous_secret = $3 WHERE tenant_id = $1',
              [row.tenant_id, current, previous],
            );
          }
        } catch (err) {
          count.failed++;
          deps.log.warn(
            { tenantId: row.tenant_id, err: (err as Error).message },
            `the signing secret of ${row.tenant_id} does not open`,
          );
        }
      }
      after = rows.at(-1)?.tenant_id ?? after;
      return rows.length < batch;
    });
    if (done) return count;
  }
}

async function rotateTargets(deps: Pick<ServiceDeps, 'pool' | 'keyring' | 'log'>, batch: number) {
  const count = emptyCount();
  const { keyring } = deps;
  let after = '';
  for (;;) {
    const done = await withTransaction(deps.pool, async (db: Queryable) => {
      // Deleted jobs too: their targets are still stored.
      const { rows } = await db.query<{
        id: string;
        tenant_id: string;
        target: StoredTarget;
        target_secrets: Buffer | null;
      }>(
        `SELECT id, tenant_id, target, target_secrets FROM jobs
          WHERE id > $1 ORDER BY id LIMIT $2 FOR NO KEY UPDATE`,
        [after, batch],
      );
      for (const row of rows) {
        if (row.target_secrets && keyring.isCurrent(row.target_secrets)) {
          count.current++;
          continue;
        }
        try {
          // Revealing a row stored before sealing gives its target as it is; sealing it masks it.
          const plain = revealTarget(keyring, row.tenant_id, row.target, row.target_secrets);
          const { stored, sealed } = sealTarget(keyring, row.tenant_id, plain, null);
          if (!sealed && !row.target_secrets) continue; // no secrets at all
          await db.query('UPDATE jobs SET target = $2::jsonb, target_secrets = $3 WHERE id = $1', [
            row.id,
            JSON.stringify(stored),
            sealed,
          ]);
          count.resealed++;
        } catch (err) {
          count.failed++;
          deps.log.warn(
            { jobId: row.id, err: (err as Error).message },
            `the target secrets of job ${row.id} do not open`,
          );
        }
      }
      after = rows.at(-1)?.id ?? after;
      return rows.length < batch;
    });
    if (done) return count;
  }
}

async function rotateAlertChannels(deps: Pick<ServiceDeps, 'pool' | 'keyring' | 'log'>, batch: number) {
  const count = emptyCount();
  const { keyring } = deps;
  let after = '';
  for (;;) {
    const done = await withTransaction(deps.pool, async (db: Queryable) => {
      const { rows } = await db.query<{ id: string; tenant_id: string; sealed: Buffer }>(
        `SELECT id, tenant_id, sealed FROM alert_channels
          WHERE id > $1 ORDER BY id LIMIT $2 FOR NO KEY UPDATE`,
        [after, batch],
      );
      for (const row of rows) {
        if (keyring.isCurrent(row.sealed)) {
          count.current++;
          continue;
        }
        const context = { tenantId: row.tenant_id, purpose: ALERT_CHANNEL_PURPOSE };
        try {
          const resealed = keyring.seal(keyring.open(row.sealed, context), context);
          await db.query('UPDATE alert_channels SET sealed = $2 WHERE id = $1', [row.id, resealed]);
          count.resealed++;
        } catch (err) {
          count.failed++;
          deps.log.warn(
            { tenantId: row.tenant_id, channelId: row.id, err: (err as Error).message },
            `the configuration of alert channel ${row.id} does not open`,
          );
        }
      }
      after = rows.at(-1)?.id ?? after;
      return rows.length < batch;
    });
    if (done) return count;
  }
}
