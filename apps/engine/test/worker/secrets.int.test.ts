// A worker's signing secrets: read once per tenant and shared, read again in the background once
// older than the TTL while deliveries keep signing with the last answer, waited for when that
// answer is older than the staleness bound, and never kept when a read failed.
import { SIGNING_SECRET_PURPOSE } from '@belfry/core';
import pg from 'pg';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../../test/db';
import { insertTenant, TEST_KEYRING } from '../../../../test/fixtures';
import { SigningSecrets } from '../../src/worker/secrets';

describe('SigningSecrets', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => {
    await db?.destroy();
  });

  const rotate = async (tenantId: string, secret: string) => {
    await db.pool.query('UPDATE signing_secrets SET current_secret = $2 WHERE tenant_id = $1', [
      tenantId,
      TEST_KEYRING.seal(secret, { tenantId, purpose: SIGNING_SECRET_PURPOSE }),
    ]);
  };

  it('shares one read between deliveries and keeps signing with it while the row is read again', async () => {
    const tenant = await insertTenant(db.pool);
    const secrets = new SigningSecrets(db.pool, TEST_KEYRING, 100, 60_000);
    const first = secrets.get(tenant.id);
    expect(secrets.get(tenant.id)).toBe(first);
    expect(await first).toEqual([tenant.secret]);

    await rotate(tenant.id, 'whsec_cm90YXRlZC1pbi10aGUtYmFja2dyb3VuZA==');
    await sleep(150);
    // Past the TTL: the last answer signs at once; the row is read behind it.
    const stale = secrets.get(tenant.id);
    expect(stale).toBe(first);
    await vi.waitFor(
      async () => expect(await secrets.get(tenant.id)).toEqual(['whsec_cm90YXRlZC1pbi10aGUtYmFja2dyb3VuZA==']),
      {
        timeout: 10_000,
        interval: 20,
      },
    );
  });

  it('waits for the row when the last answer is older than the staleness bound', async () => {
    const tenant = await insertTenant(db.pool);
    const secrets = new SigningSecrets(db.pool, TEST_KEYRING, 50, 200);
    expect(await secrets.get(tenant.id)).toEqual([tenant.secret]);
    await rotate(tenant.id, 'whsec_dG9vLW9sZC10by1zaWdu');
    await sleep(250);
    expect(await secrets.get(tenant.id)).toEqual(['whsec_dG9vLW9sZC10by1zaWdu']);
  });

  it('keeps the last answer through failed reads until the staleness bound, then fails', async () => {
    const tenant = await insertTenant(db.pool);
    const pool = new pg.Pool({ connectionString: db.url, max: 1 });
    const secrets = new SigningSecrets(pool, TEST_KEYRING, 50, 2_000);
    expect(await secrets.get(tenant.id)).toEqual([tenant.secret]);
    await pool.end(); // every read from now on fails
    await sleep(100);
    expect(await secrets.get(tenant.id)).toEqual([tenant.secret]);
    expect(await secrets.get(tenant.id)).toEqual([tenant.secret]);
    await sleep(2_000);
    await expect(secrets.get(tenant.id)).rejects.toThrow(/pool/i);
  });

  it('does not keep a failed first read', async () => {
    const tenant = await insertTenant(db.pool);
    const broken = new pg.Pool({ connectionString: db.url, max: 1 });
    await broken.end();
    const failing = new SigningSecrets(broken, TEST_KEYRING);
    const first = failing.get(tenant.id);
    await expect(first).rejects.toThrow();
    const again = failing.get(tenant.id);
    expect(again).not.toBe(first); // asked again, not the cached failure
    await expect(again).rejects.toThrow();
  });
});
