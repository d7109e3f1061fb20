// The first-run seed: exactly one demo tenant with an owner login, a working API key and a
// sealed signing secret; later starts (even concurrent ones) seed nothing.
import { createHash } from 'node:crypto';
import { createPrisma, createQueueClient, type QueueClient } from '@belfry/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../test/db';
import { TEST_KEYRING } from '../../../test/fixtures';
import {
  DEMO_EMAIL,
  getSigningSecret,
  seedDemoTenant,
  systemClock,
  verifyPassword,
  type ServiceDeps,
} from '../src/index';

describe('demo seed', () => {
  let db: TestDatabase;
  let deps: ServiceDeps;
  let queue: QueueClient;

  beforeAll(async () => {
    db = await createTestDatabase();
    queue = await createQueueClient(db.url);
    deps = {
      prisma: createPrisma(db.url),
      pool: db.pool,
      queue,
      clock: systemClock,
      log: console,
      keyring: TEST_KEYRING,
      partitions: db.partitions,
    };
  });
  afterAll(async () => {
    await queue.stop({ graceful: false });
    await deps.prisma.$disconnect();
    await db.destroy();
  });

  it('creates one tenant with an owner, an API key and a signing secret, once', async () => {
    const results = await Promise.all([seedDemoTenant(deps, 'pw-one-123'), seedDemoTenant(deps, 'pw-two-456')]);
    const created = results.filter((r) => r.created);
    expect(created).toHaveLength(1);
    const seed = created[0];
    if (!seed?.apiKey || !seed.tenantId || !seed.password) throw new Error('seed result incomplete');
    expect(seed.email).toBe(DEMO_EMAIL);
    expect(seed.apiKey).toMatch(/^bfy_[A-Za-z0-9_-]{43}$/);

    const tenants = await db.pool.query('SELECT id FROM tenants');
    expect(tenants.rows).toEqual([{ id: seed.tenantId }]);

    const user = await db.pool.query(
      `SELECT u.password_hash, m.role FROM users u JOIN memberships m ON m.user_id = u.id WHERE u.email = $1`,
      [DEMO_EMAIL],
    );
    expect(user.rows[0].role).toBe('owner');
    expect(user.rows[0].password_hash).not.toContain(seed.password);
    expect(await verifyPassword(user.rows[0].password_hash, seed.password)).toBe(true);

    // Only the SHA-256 of the key is stored, with a visible prefix.
    const keys = await db.pool.query('SELECT prefix, key_hash, scopes, revoked_at FROM api_keys WHERE tenant_id = $1', [
      seed.tenantId,
    ]);
    expect(keys.rows).toHaveLength(1);
    expect(keys.rows[0].key_hash.equals(createHash('sha256').update(seed.apiKey).digest())).toBe(true);
    expect(seed.apiKey.startsWith(keys.rows[0].prefix)).toBe(true);
    expect(keys.rows[0].scopes).toEqual([
      'jobs:read',
      'jobs:write',
      'runs:read',
      'runs:write',
      'queues:consume',
      'admin',
    ]);

    // The signing secret is sealed at rest and opens with the key.
    const stored = await db.pool.query('SELECT current_secret FROM signing_secrets WHERE tenant_id = $1', [
      seed.tenantId,
    ]);
    const secret = await getSigningSecret(deps, seed.tenantId);
    expect(secret.secret).toMatch(/^whsec_/);
    expect(stored.rows[0].current_secret.includes(Buffer.from(secret.secret))).toBe(false);

    expect(await seedDemoTenant(deps, 'again')).toEqual({ created: false });
  });
});
