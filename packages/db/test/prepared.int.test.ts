// Named statements (prepared.ts): a pool of direct connections prepares the hot statements
// once per connection, the claim and the completion addressed to the day's partition of runs
// their batch lives in (runs-partitions.ts), which PostgreSQL then plans once and reuses; a batch
// without a partition of its own goes to runs, unnamed, planned per call; any other pool or
// transaction sends them unnamed (through a transaction pooler the names would be lost); and a
// connection whose named statement went stale under a migration, or whose day partition was
// dropped, is dropped, not reused.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../test/db';
import { insertTenant } from '../../../test/fixtures';
import {
  claimRuns,
  completeAttempts,
  createPool,
  MAX_NAMES,
  runsDayPartitionName,
  statement,
  withTransaction,
} from '../src/index';
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

  interface Prepared {
    name: string;
    generic: number;
    custom: number;
  }
  interface Round {
    pid: number;
    claimed: number;
    statements: Prepared[];
  }

  /** claims and completes `n` new runs on `pool` (from `firstAt`), answering the statements prepared on its connection */
  async function claimAndComplete(
    pool: typeof db.pool,
    n: number,
    { namedStatements = true, firstAt }: { namedStatements?: boolean; firstAt?: Date } = {},
  ): Promise<Round> {
    const { runs } = await insertPendingRunsOfOneJob(db, tenantId, n, firstAt ? { firstAt } : {});
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
        expect(done).toHaveLength(claimed.length);
        const { rows } = await tx.query<Prepared & { pid: number }>(
          `SELECT name, generic_plans::int AS generic, custom_plans::int AS custom, pg_backend_pid() AS pid
           FROM pg_prepared_statements ORDER BY name`,
        );
        return {
          pid: rows[0]?.pid ?? -1,
          claimed: claimed.length,
          statements: rows.map(({ name, generic, custom }) => ({ name, generic, custom })),
        };
      },
      { namedStatements },
    );
  }
  const onDay = (day: string) => ['belfry_alert_resets', `belfry_claim_runs:${day}`, `belfry_complete_attempts:${day}`];
  /** a minute ago, as the default runs of insertPendingRunsOfOneJob */
  const today = () => runsDayPartitionName([new Date(Date.now() - 60_000)]) as string;

  it('a pool of direct connections prepares the claim and the completion for the day partition once per connection, and reuses one plan', async () => {
    const pool = createPool(db.url, { max: 1, name: 'belfry-test-prepared', preparedStatements: true });
    try {
      const names = onDay(today());
      const first = await claimAndComplete(pool, 3);
      expect(first.statements.map((s) => s.name)).toEqual(expect.arrayContaining(names));
      // the same connection, more calls than PostgreSQL plans for the parameters (5): still
      // prepared once, and now planned once for all calls (one table, found by key)
      let last = first;
      for (let i = 0; i < 7; i++) last = await claimAndComplete(pool, 2);
      expect(last.pid).toBe(first.pid);
      const byName = new Map(last.statements.map((s) => [s.name, s]));
      // (the alert reset is left to PostgreSQL's choice: its plan for the parameters looks cheaper)
      for (const name of names.filter((n) => n !== 'belfry_alert_resets')) {
        expect(byName.get(name)?.custom).toBe(5);
        expect(byName.get(name)?.generic).toBe(3);
      }
      // a transaction that does not use names sends them unnamed, on the same connection
      const unnamed = await claimAndComplete(pool, 2, { namedStatements: false });
      expect(unnamed.claimed).toBe(2);
      expect(unnamed.statements.map((s) => s.name)).toEqual(last.statements.map((s) => s.name));
    } finally {
      await pool.end();
    }
  });

  it('a plan made while the day partition was small still finds the runs by key once it has grown', async () => {
    const pool = createPool(db.url, { max: 1, name: 'belfry-test-grown', preparedStatements: true });
    const day = new Date(Date.UTC(2033, 4, 5, 1));
    /** sequential scans of the partition, as the pool's one connection counts them */
    const seqScans = async () => {
      await pool.query('SELECT pg_stat_force_next_flush()');
      const { rows } = await pool.query<{ n: string }>(
        `SELECT seq_scan::text AS n FROM pg_stat_user_tables WHERE relid = 'runs_20330505'::regclass`,
      );
      return Number(rows[0]?.n);
    };
    try {
      await db.pool.query(`SELECT belfry_ensure_history_partitions('2033-05-05', '2033-05-05')`);
      // (no ANALYZE by autovacuum while the test runs: it would re-plan the statements)
      await db.pool.query('ALTER TABLE runs_20330505 SET (autovacuum_enabled = off)');
      // the day's first runs, and autovacuum's ANALYZE of the small partition
      await insertPendingRunsOfOneJob(db, tenantId, 20, { firstAt: day });
      await db.pool.query('ANALYZE runs_20330505');
      // more calls than PostgreSQL plans for the parameters: the plan it keeps is made now,
      // a few runs in the partition
      let round = await claimAndComplete(pool, 2, { firstAt: day });
      for (let i = 0; i < 7; i++) round = await claimAndComplete(pool, 2, { firstAt: day });
      const claim = round.statements.find((s) => s.name === 'belfry_claim_runs:runs_20330505');
      expect(claim?.generic).toBeGreaterThan(0);
      // the day's herd arrives
      await insertPendingRunsOfOneJob(db, tenantId, 3000, { firstAt: new Date(day.getTime() + 3_600_000) });
      const before = await seqScans();
      const after = await claimAndComplete(pool, 2, { firstAt: day });
      expect(after.claimed).toBe(2);
      expect(after.statements.find((s) => s.name === claim?.name)?.generic).toBe((claim?.generic ?? 0) + 1);
      // neither the claim nor the completion read the partition
      expect(await seqScans()).toBe(before);
    } finally {
      await pool.end();
    }
  });

  it('only a transaction that may use the names plans without sequential scans', async () => {
    const setting = (pool: typeof db.pool, namedStatements: boolean) =>
      withTransaction(
        pool,
        async (tx) => (await tx.query<{ on: string }>(`SELECT current_setting('enable_seqscan') AS on`)).rows[0]!.on,
        { namedStatements },
      );
    const keeping = createPool(db.url, { max: 1, name: 'belfry-test-modes', preparedStatements: true });
    try {
      expect(await setting(keeping, true)).toBe('off');
      expect(await setting(keeping, false)).toBe('on');
      expect(await setting(db.pool, true)).toBe('on');
      // SET LOCAL: nothing is left on the connection after the transaction
      expect((await keeping.query<{ on: string }>(`SELECT current_setting('enable_seqscan') AS on`)).rows[0]!.on).toBe(
        'on',
      );
    } finally {
      await keeping.end();
    }
  });

  it('a batch whose day has no partition of its own, or that spans two days, goes to runs unnamed', async () => {
    const pool = createPool(db.url, { max: 1, name: 'belfry-test-default', preparedStatements: true });
    try {
      // runs_default: far ahead of the partitions the migration creates
      const farAhead = new Date(Date.UTC(2031, 5, 1, 12));
      const outside = await claimAndComplete(pool, 3, { firstAt: farAhead });
      expect(outside.claimed).toBe(3);
      expect(outside.statements.map((s) => s.name)).toEqual(['belfry_alert_resets']);
      // a millisecond before midnight and the first milliseconds after it: two partitions
      const midnight = new Date(Date.UTC(2031, 0, 1) - 1);
      await db.pool.query(`SELECT belfry_ensure_history_partitions('2030-12-31', '2031-01-01')`);
      const spanning = await claimAndComplete(pool, 3, { firstAt: midnight });
      expect(spanning.claimed).toBe(3);
      expect(spanning.statements.map((s) => s.name)).toEqual(['belfry_alert_resets']);
      // the same day's partition is used once the batch lies in it
      const inside = await claimAndComplete(pool, 3, { firstAt: new Date(Date.UTC(2031, 0, 1, 6)) });
      expect(inside.claimed).toBe(3);
      expect(inside.statements.map((s) => s.name)).toEqual(onDay('runs_20310101'));
    } finally {
      await pool.end();
    }
  });

  it('a connection whose day partition was dropped is dropped, and the transaction runs again on runs', async () => {
    const pool = createPool(db.url, { max: 1, name: 'belfry-test-dropped', preparedStatements: true });
    const day = new Date(Date.UTC(2032, 2, 3, 4));
    try {
      await db.pool.query(`SELECT belfry_ensure_history_partitions('2032-03-03', '2032-03-03')`);
      const before = await claimAndComplete(pool, 2, { firstAt: day });
      expect(before.statements.map((s) => s.name)).toEqual(onDay('runs_20320303'));
      // retention drops the partition; the day's next runs land in runs_default
      await db.pool.query('DROP TABLE runs_20320303');
      const after = await claimAndComplete(pool, 2, { firstAt: day });
      expect(after.claimed).toBe(2);
      expect(after.pid).not.toBe(before.pid);
      expect(after.statements.map((s) => s.name)).toEqual(['belfry_alert_resets']);
    } finally {
      await pool.end();
    }
  });

  it('a connection that has prepared more statements than it keeps is closed after its transaction', async () => {
    const pool = createPool(db.url, { max: 1, name: 'belfry-test-names', preparedStatements: true });
    const pid = (tx: Parameters<typeof statement>[0], i: number) =>
      tx.query<{ pid: number }>(statement(tx, `belfry_test_name_${i}`, `SELECT pg_backend_pid() + ${i} - ${i} AS pid`));
    try {
      const first = await withTransaction(
        pool,
        async (tx) => {
          let p = 0;
          for (let i = 0; i < MAX_NAMES; i++) p = (await pid(tx, i)).rows[0]!.pid;
          return p;
        },
        { namedStatements: true },
      );
      // MAX_NAMES: still the same connection
      const same = await withTransaction(pool, async (tx) => (await pid(tx, 0)).rows[0]!.pid, {
        namedStatements: true,
      });
      expect(same).toBe(first);
      // one more: closed after this transaction
      await withTransaction(pool, (tx) => pid(tx, MAX_NAMES), { namedStatements: true });
      const next = await withTransaction(pool, async (tx) => (await pid(tx, 0)).rows[0]!.pid, {
        namedStatements: true,
      });
      expect(next).not.toBe(first);
    } finally {
      await pool.end();
    }
  });

  it('any other pool sends them unnamed (as through a transaction pooler, which would lose the names)', async () => {
    const round = await claimAndComplete(db.pool, 2);
    expect(round.claimed).toBe(2);
    expect(round.statements).toEqual([]);
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
