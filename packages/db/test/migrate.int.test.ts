import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { migrate, readMigrations, withDatabase } from '../src/index';
import {
  createDatabaseMigratedBefore,
  createTestDatabase,
  dropTestDatabase,
  type TestDatabase,
} from '../../../test/db';
import { insertJob, insertTenant } from '../../../test/fixtures';

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

  it('upgrade a database holding jobs, schedule entries and runs from before the job enums', async () => {
    // A deployment at the previous migration (compact_storage) with some rows, then the rest.
    const { name, url } = await createDatabaseMigratedBefore('20261201020000_job_enums', 'belfry_test_upgrade');
    const client = new pg.Client({ connectionString: url });
    try {
      await client.connect();
      await client.query(`INSERT INTO tenants (id, name, slug) VALUES ('ten_up', 'up', 'up')`);
      await client.query(
        `INSERT INTO jobs (id, tenant_id, name, schedule_type, cron_expression, run_at, every_seconds, target,
                           priority, misfire_policy, overlap_policy, status, partition)
         VALUES ('job_a', 'ten_up', 'a', 'cron', '0 * * * *', NULL, NULL, '{"type":"http"}', 'high', 'catch_up', 'skip', 'active', 1),
                ('job_b', 'ten_up', 'b', 'once', NULL, '2030-01-01Z', NULL, '{"type":"http"}', 'normal', 'run_once', 'allow', 'completed', 2),
                ('job_c', 'ten_up', 'c', 'interval', NULL, NULL, 60, '{"type":"http"}', 'low', 'skip', 'allow', 'paused', 3)`,
      );
      await client.query(
        `INSERT INTO schedule_entries (job_id, partition, next_run_at) VALUES ('job_a', 1, '2030-01-01T01:00:00Z')`,
      );
      await client.query(
        `INSERT INTO runs (id, tenant_id, job_id, scheduled_time, status, trigger, priority)
         VALUES ('run_a', 'ten_up', 'job_a', now(), 'succeeded', 'schedule', 'high')`,
      );
      // Leases held and taken over a few times: the (partition, epoch) key builds over them.
      await client.query(
        `UPDATE partition_leases SET owner = 'node-old', epoch = partition % 3, expires_at = now() + interval '1 minute'`,
      );

      const later = await migrate(url, { partitions: 16 });
      expect(later.applied).toEqual(
        readMigrations()
          .map((m) => m.name)
          .filter((n) => n > '20261130233000_compact_storage'),
      );
      const { rows } = await client.query(
        `SELECT id, tenant_seq, schedule_type, priority, misfire_policy, overlap_policy, status,
                pg_typeof(status)::text AS status_type
           FROM jobs ORDER BY id`,
      );
      expect(rows).toEqual([
        {
          id: 'job_a',
          tenant_seq: 1,
          schedule_type: 'cron',
          priority: 'high',
          misfire_policy: 'catch_up',
          overlap_policy: 'skip',
          status: 'active',
          status_type: 'job_status',
        },
        {
          id: 'job_b',
          tenant_seq: 1,
          schedule_type: 'once',
          priority: 'normal',
          misfire_policy: 'run_once',
          overlap_policy: 'allow',
          status: 'completed',
          status_type: 'job_status',
        },
        {
          id: 'job_c',
          tenant_seq: 1,
          schedule_type: 'interval',
          priority: 'low',
          misfire_policy: 'skip',
          overlap_policy: 'allow',
          status: 'paused',
          status_type: 'job_status',
        },
      ]);
      const leases = await client.query<{ n: number; epochs: number }>(
        `SELECT count(*)::int AS n, count(DISTINCT epoch)::int AS epochs FROM partition_leases WHERE owner = 'node-old'`,
      );
      expect(leases.rows).toEqual([{ n: 16, epochs: 3 }]);
      expect((await client.query(`SELECT 'partition_leases_partition_epoch_key'::regclass`)).rowCount).toBe(1);
      // The schedule entry moved into its job's row (schedule_in_jobs), and its table is gone.
      const entries = await client.query('SELECT id, partition, next_run_at FROM jobs WHERE next_run_at IS NOT NULL');
      expect(entries.rows).toEqual([{ id: 'job_a', partition: 1, next_run_at: new Date('2030-01-01T01:00:00Z') }]);
      const gone = await client.query(`SELECT to_regclass('schedule_entries') AS t`);
      expect(gone.rows).toEqual([{ t: null }]);
      const runs = await client.query('SELECT r.id, r.priority FROM runs r JOIN jobs j ON j.id = r.job_id');
      expect(runs.rows).toEqual([{ id: 'run_a', priority: 'high' }]);
      // The list index still serves a status range; the defaults and the schedule CHECK hold.
      await client.query('SET enable_seqscan = off'); // three rows: a sequential scan is cheaper
      const indexed = await client.query(
        `EXPLAIN SELECT id FROM jobs WHERE tenant_seq = 1 AND status = 'active' AND deleted_at IS NULL
          ORDER BY created_at DESC LIMIT 10`,
      );
      expect(JSON.stringify(indexed.rows)).toContain('jobs_tenant_status_idx');
      await client.query(
        `INSERT INTO jobs (id, tenant_id, name, schedule_type, cron_expression, target, partition)
         VALUES ('job_d', 'ten_up', 'd', 'cron', '* * * * *', '{}', 4)`,
      );
      const d = await client.query(
        `SELECT priority, misfire_policy, overlap_policy, status FROM jobs WHERE id = 'job_d'`,
      );
      expect(d.rows[0]).toEqual({
        priority: 'normal',
        misfire_policy: 'run_once',
        overlap_policy: 'allow',
        status: 'active',
      });
      await expect(
        client.query(
          `INSERT INTO jobs (id, tenant_id, name, schedule_type, target, partition) VALUES ('job_e', 'ten_up', 'e', 'cron', '{}', 5)`,
        ),
      ).rejects.toMatchObject({ code: '23514' });
      await expect(client.query(`UPDATE jobs SET status = 'archived' WHERE id = 'job_a'`)).rejects.toMatchObject({
        code: '22P02',
      });
      // The anchor migration: rows keep their anchor; only an interval must have one.
      const anchors = await client.query('SELECT id FROM jobs WHERE anchor_at IS NULL');
      expect(anchors.rows).toEqual([]);
      await client.query(`UPDATE jobs SET anchor_at = NULL WHERE id IN ('job_a', 'job_b')`);
      await expect(client.query(`UPDATE jobs SET anchor_at = NULL WHERE id = 'job_c'`)).rejects.toMatchObject({
        code: '23514',
      });
    } finally {
      await client.end().catch(() => {});
      await dropTestDatabase(name);
    }
  });

  it('store completed the live jobs an earlier version left active without a next occurrence, and no others', async () => {
    const { name, url } = await createDatabaseMigratedBefore(
      '20261206120000_exhausted_jobs_completed',
      'belfry_test_exhausted',
    );
    const pool = new pg.Pool({ connectionString: url });
    try {
      const tenant = await insertTenant(pool);
      const job = async (status: string, next: boolean, deleted = false) => {
        const { id } = await insertJob(pool, tenant.id, {
          schedule: { type: 'once', runAt: new Date(Date.now() + 60_000) },
          url: 'https://example.com/hook',
          partitions: 16,
        });
        await pool.query(
          `UPDATE jobs SET status = $2::job_status, next_run_at = CASE WHEN $3 THEN next_run_at END,
                  deleted_at = CASE WHEN $4 THEN now() END WHERE id = $1`,
          [id, status, next, deleted],
        );
        return id;
      };
      // a one-off materialized by the earlier version (its run open or finished), one still to come,
      // a paused one, a deleted one, one completed already
      const ids = {
        materialized: await job('active', false),
        coming: await job('active', true),
        paused: await job('paused', false),
        deleted: await job('active', false, true),
        completed: await job('completed', false),
      };
      await migrate(url, { partitions: 16 });
      const { rows } = await pool.query<{ id: string; status: string }>(
        'SELECT id, status::text FROM jobs WHERE id = ANY($1::text[])',
        [Object.values(ids)],
      );
      const status = new Map(rows.map((r) => [r.id, r.status]));
      expect(Object.fromEntries(Object.entries(ids).map(([k, id]) => [k, status.get(id)]))).toEqual({
        materialized: 'completed',
        coming: 'active',
        paused: 'paused',
        deleted: 'active',
        completed: 'completed',
      });
    } finally {
      await pool.end();
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
         ON CONFLICT (job_id, scheduled_time, (CASE WHEN trigger = 'schedule' THEN '' ELSE id END)) DO NOTHING`,
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
