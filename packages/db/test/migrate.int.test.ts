import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { migrate, readMigrations, withDatabase } from '../src/index';
import { createTestDatabase, dropTestDatabase, type TestDatabase } from '../../../test/db';

describe('migrations', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(() => db.destroy());

  it('apply to an empty database and record themselves as Prisma does', async () => {
    const name = `belfry_test_empty_${Date.now()}`;
    const admin = new pg.Client({ connectionString: inject('serverUrl') });
    await admin.connect();
    await admin.query(`CREATE DATABASE "${name}"`);
    await admin.end();
    try {
      const url = withDatabase(inject('serverUrl'), name);
      const first = await migrate(url, { partitions: 64 });
      expect(first.applied).toEqual(readMigrations().map((m) => m.name));
      expect(first.partitions).toBe(64);
      // idempotent, and the partition count is fixed by the first migration
      const second = await migrate(url, { partitions: 1024 });
      expect(second).toEqual({ applied: [], partitions: 64 });
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      const { rows } = await client.query(
        'SELECT migration_name, checksum, finished_at FROM _prisma_migrations ORDER BY migration_name',
      );
      expect(rows.map((r) => [r.migration_name, r.checksum])).toEqual(
        readMigrations().map((m) => [m.name, m.checksum]),
      );
      expect(rows.every((r) => r.finished_at instanceof Date)).toBe(true);
      const leases = await client.query(
        'SELECT count(*)::int AS n, min(partition) AS lo, max(partition) AS hi FROM partition_leases',
      );
      expect(leases.rows[0]).toEqual({ n: 64, lo: 0, hi: 63 });
      await client.end();
    } finally {
      await dropTestDatabase(name);
    }
  });

  it('refuses a migration that was edited after it was applied', async () => {
    await db.pool.query(`UPDATE _prisma_migrations SET checksum = 'tampered' WHERE migration_name = $1`, [
      readMigrations()[0]?.name,
    ]);
    await expect(migrate(db.url, { partitions: 16 })).rejects.toThrow(/checksum mismatch/);
  });

  it('keeps one scheduled run per occurrence, while manual runs may share the time', async () => {
    const t = '2026-11-29T10:00:00Z';
    await db.pool.query(`INSERT INTO tenants (id, name, slug) VALUES ('ten_1', 't', 't1')`);
    const insert = (id: string, trigger: string) =>
      db.pool.query(
        `INSERT INTO runs (id, tenant_id, job_id, scheduled_time, status, trigger)
         VALUES ($1, 'ten_1', 'job_1', $2, 'pending', $3)
         ON CONFLICT (job_id, scheduled_time) WHERE trigger = 'schedule' DO NOTHING`,
        [id, t, trigger],
      );
    expect((await insert('run_a', 'schedule')).rowCount).toBe(1);
    expect((await insert('run_b', 'schedule')).rowCount).toBe(0);
    expect((await insert('run_c', 'manual')).rowCount).toBe(1);
    expect((await insert('run_d', 'replay')).rowCount).toBe(1);
    // without ON CONFLICT the constraint itself refuses the duplicate
    await expect(
      db.pool.query(
        `INSERT INTO runs (id, tenant_id, job_id, scheduled_time, status, trigger) VALUES ('run_e', 'ten_1', 'job_1', $1, 'pending', 'schedule')`,
        [t],
      ),
    ).rejects.toMatchObject({ code: '23505' });
    const { rows } = await db.pool.query(
      `SELECT count(*)::int AS n FROM runs WHERE job_id = 'job_1' AND trigger = 'schedule'`,
    );
    expect(rows[0].n).toBe(1);
  });

  it('partitions run history by day and drops old days whole', async () => {
    await db.pool.query(`SELECT belfry_ensure_history_partitions('2020-01-01', '2020-01-02')`);
    await db.pool.query(
      `INSERT INTO runs (id, tenant_id, job_id, scheduled_time, status, trigger) VALUES ('run_old', 'ten_1', 'job_x', '2020-01-01T12:00:00Z', 'succeeded', 'schedule')`,
    );
    const where = await db.pool.query(`SELECT tableoid::regclass::text AS part FROM runs WHERE id = 'run_old'`);
    expect(where.rows[0].part).toBe('runs_20200101');
    const dropped = await db.pool.query(`SELECT belfry_drop_history_partitions('2020-01-02') AS n`);
    expect(dropped.rows[0].n).toBe(2); // runs_20200101 and run_attempts_20200101
    const left = await db.pool.query(`SELECT count(*)::int AS n FROM runs WHERE id = 'run_old'`);
    expect(left.rows[0].n).toBe(0);
    const kept = await db.pool.query(`SELECT to_regclass('runs_20200102') IS NOT NULL AS ok`);
    expect(kept.rows[0].ok).toBe(true);
  });
});
