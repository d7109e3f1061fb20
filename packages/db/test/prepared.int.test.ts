// Named statements (prepared.ts): a pool of direct connections prepares the hot statements
// once per connection, in transactions that plan each call for its parameters; any other pool
// or transaction sends them unnamed (through a transaction pooler the names would be lost);
// and a connection whose named statement went stale under a migration is dropped, not reused.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../test/db';
import { insertTenant } from '../../../test/fixtures';
import { claimRuns, completeAttempts, createPool, statement, withTransaction } from '../src/index';
import { succeededOutcome } from './outcomes';
import { insertPendingRunsOfOneJob } from './pending-runs';

const WORKER = 'worker-prepared';

describe('named statements', () => {
  let db: TestDatabase;
  let tenantId: string;
  beforeAll(async () => {
    db = await createTestDatabase();
    tenantId = (await insertTenant(db.pool)).id;
  });
  afterAll(() => db.destroy());

  /** claims and completes `n` new runs on `pool`, answering the statements prepared on its connection */
  async function claimAndComplete(
    pool: typeof db.pool,
    n: number,
    namedStatements = true,
  ): Promise<{ name: string; generic: number }[]> {
    const { runs } = await insertPendingRunsOfOneJob(db, tenantId, n);
    return withTransaction(
      pool,
      async (tx) => {
        const claimed = await claimRuns(
          tx,
          WORKER,
          30_000,
          runs.map((r) => r.id),
          runs.map((r) => r.scheduled_time),
        );
        const done = await completeAttempts(
          tx,
          WORKER,
          claimed.map((r) => succeededOutcome(r)),
        );
        expect(done).toHaveLength(n);
        const { rows } = await tx.query<{ name: string; generic: number }>(
          'SELECT name, generic_plans::int AS generic FROM pg_prepared_statements ORDER BY name',
        );
        return rows;
      },
      { namedStatements },
    );
  }
  const NAMES = ['belfry_alert_resets', 'belfry_claim_runs', 'belfry_complete_attempts'];

  it('a pool of direct connections prepares the claim and the completion once per connection, and plans each call', async () => {
    const pool = createPool(db.url, { max: 1, name: 'belfry-test-prepared', preparedStatements: true });
    try {
      const first = await claimAndComplete(pool, 3);
      expect(first.map((s) => s.name)).toEqual(expect.arrayContaining(NAMES));
      // the same connection, more calls than PostgreSQL makes before it considers a generic
      // plan (5): still prepared once, never planned generically (which reads every partition)
      let last = first;
      for (let i = 0; i < 7; i++) last = await claimAndComplete(pool, 2);
      expect(last.filter((s) => NAMES.includes(s.name))).toEqual(NAMES.map((name) => ({ name, generic: 0 })));
      // a transaction that does not plan each call sends them unnamed, on the same connection
      expect((await claimAndComplete(pool, 2, false)).map((s) => s.name).sort()).toEqual(NAMES);
    } finally {
      await pool.end();
    }
  });

  it('any other pool sends them unnamed (as through a transaction pooler, which would lose the names)', async () => {
    expect(await claimAndComplete(db.pool, 2)).toEqual([]);
  });

  it('only a transaction that may use the names plans each statement for its parameters', async () => {
    const mode = (pool: typeof db.pool, namedStatements: boolean) =>
      withTransaction(
        pool,
        async (tx) =>
          (await tx.query<{ mode: string }>(`SELECT current_setting('plan_cache_mode') AS mode`)).rows[0]!.mode,
        { namedStatements },
      );
    const keeping = createPool(db.url, { max: 1, name: 'belfry-test-modes', preparedStatements: true });
    try {
      expect(await mode(keeping, true)).toBe('force_custom_plan');
      expect(await mode(keeping, false)).toBe('auto');
      expect(await mode(db.pool, true)).toBe('auto');
      // SET LOCAL: nothing is left on the connection after the transaction
      expect(
        (await keeping.query<{ mode: string }>(`SELECT current_setting('plan_cache_mode') AS mode`)).rows[0]!.mode,
      ).toBe('auto');
    } finally {
      await keeping.end();
    }
  });

  it('a transaction whose named statement went stale under a migration runs again on a new connection', async () => {
    await db.pool.query('CREATE TABLE prepared_probe (a int)');
    const pool = createPool(db.url, { max: 1, name: 'belfry-test-stale', preparedStatements: true });
    const probe = (tx: Parameters<typeof statement>[0]) =>
      tx.query<{ pid: number }>(
        statement(
          tx,
          'belfry_test_probe',
          'SELECT p.*, pg_backend_pid() AS pid FROM prepared_probe p RIGHT JOIN (SELECT 1) one ON true',
        ),
      );
    try {
      const named = { namedStatements: true, maxTries: 1 };
      const first = (await withTransaction(pool, probe, named)).rows[0]!.pid;
      // a migration changes the statement's result columns under the running node: the old
      // connection fails once ('cached plan must not change result type'), is dropped, and the
      // transaction runs on a new one, not spending its one try
      await db.pool.query('ALTER TABLE prepared_probe ADD COLUMN b int');
      const { rows } = await withTransaction(pool, probe, named);
      expect(rows[0]!.pid).not.toBe(first);
      expect(Object.keys(rows[0]!)).toEqual(['a', 'b', 'pid']);
    } finally {
      await pool.end();
      await db.pool.query('DROP TABLE prepared_probe');
    }
  });
});
