// warmPool: the connections an engine node opens before it takes work have run the catalog
// warm-up on the engine's tables (a statement that names a table the migrations no longer
// make would fail here, not silently in production), and stay in the pool.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../test/db';
import { createPool, createQueueClient, type QueueClient, warmPool, withDatabase } from '../src/index';

describe('warmPool', () => {
  let db: TestDatabase;
  let boss: QueueClient;

  beforeAll(async () => {
    db = await createTestDatabase();
    // the pg-boss schema, as the engine has it before warming its pool
    boss = await createQueueClient(db.url, { max: 1 });
  });
  afterAll(async () => {
    await boss?.stop({ graceful: false, close: true });
    await db?.destroy();
  });

  it('opens the connections, runs the warm-up on each and keeps them', async () => {
    const name = 'belfry-warm-test';
    const pool = createPool(db.url, { max: 6, min: 3, name });
    try {
      expect(await warmPool(pool, 3)).toBe(3);
      expect(pool.totalCount).toBe(3);
      expect(pool.idleCount).toBe(3);
      const { rows } = await db.pool.query<{ query: string }>(
        'SELECT query FROM pg_stat_activity WHERE application_name = $1',
        [name],
      );
      expect(rows).toHaveLength(3);
      for (const r of rows) expect(r.query).toContain('FROM run_attempts');
    } finally {
      await pool.end();
    }
  });

  it('counts only the connections it could warm', async () => {
    const pool = createPool(withDatabase(db.url, 'belfry_no_such_database'), {
      max: 2,
      connectionTimeoutMs: 2_000,
    });
    try {
      expect(await warmPool(pool, 2)).toBe(0);
    } finally {
      await pool.end();
    }
  });
});
