// The retention loop on real PostgreSQL: daily history partitions are created ahead and dropped
// past the longest tenant retention; a tenant with a shorter retention loses its finished runs
// (and their attempts) in batches, never a run still pending; stale idempotency keys, nodes and
// rate-limit buckets are cleared; and only one node does a pass at a time.
import { newId } from '@belfry/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../test/db';
import { insertJob, insertTenant } from '../../../test/fixtures';
import { createLogger } from '../src/logger';
import { Retention } from '../src/maintenance/retention';

const log = createLogger('silent', {});
const DAY = 24 * 60 * 60 * 1000;

/** The UTC day `days` from now as a partition suffix (YYYYMMDD). */
const suffix = (days: number) => new Date(Date.now() + days * DAY).toISOString().slice(0, 10).replaceAll('-', '');

describe('retention', () => {
  let db: TestDatabase;
  let retention: Retention;

  beforeAll(async () => {
    db = await createTestDatabase();
    retention = new Retention(db.pool, { intervalMs: 60_000, daysAhead: 10, deleteBatch: 2 }, log);
  });
  afterAll(() => db?.destroy());

  const partitions = async () =>
    new Set(
      (
        await db.pool.query<{ relname: string }>(
          `SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
            JOIN pg_class p ON p.oid = i.inhparent WHERE p.relname IN ('runs', 'run_attempts')`,
        )
      ).rows.map((r) => r.relname),
    );

  /** A run `daysAgo` days back with one attempt, in the given status. */
  const run = async (tenantId: string, jobId: string, daysAgo: number, status: string) => {
    const scheduled = new Date(Date.now() - daysAgo * DAY);
    const id = newId('run', scheduled);
    await db.pool.query(
      `INSERT INTO runs (id, tenant_id, job_id, scheduled_time, status, attempt, trigger) VALUES ($1, $2, $3, $4, $5, 1, 'manual')`,
      [id, tenantId, jobId, scheduled, status],
    );
    await db.pool.query(
      `INSERT INTO run_attempts (run_id, scheduled_time, tenant_id, job_id, attempt, status, started_at)
       VALUES ($1, $2, $3, $4, 1, $5, $2)`,
      [id, scheduled, tenantId, jobId, status === 'pending' ? 'failed' : 'succeeded'],
    );
    return id;
  };

  const exists = async (id: string) =>
    Number((await db.pool.query('SELECT count(*)::int AS n FROM runs WHERE id = $1', [id])).rows[0].n) +
    Number(
      (await db.pool.query('SELECT count(*)::int AS n FROM run_attempt_history WHERE run_id = $1', [id])).rows[0].n,
    );

  it('creates the coming days, drops whole days past the longest retention, trims shorter retentions', async () => {
    const keep = await insertTenant(db.pool, { retentionDays: 30 });
    const short = await insertTenant(db.pool, { retentionDays: 3 });
    const job = (tenantId: string) =>
      insertJob(db.pool, tenantId, {
        schedule: { type: 'once', runAt: new Date(Date.now() + DAY) },
        url: 'http://127.0.0.1:9/never-called',
        partitions: db.partitions,
      });
    const keepJob = await job(keep.id);
    const shortJob = await job(short.id);
    // Days the runs below live in: 40 days ago (past every retention) and 5 days ago.
    await db.pool.query(
      `SELECT belfry_ensure_history_partitions((now() AT TIME ZONE 'UTC')::date - 40, (now() AT TIME ZONE 'UTC')::date - 40),
              belfry_ensure_history_partitions((now() AT TIME ZONE 'UTC')::date - 6, (now() AT TIME ZONE 'UTC')::date - 1)`,
    );
    const ancient = await run(keep.id, keepJob.id, 40, 'succeeded');
    const kept = await run(keep.id, keepJob.id, 5, 'succeeded');
    const trimmed = [
      await run(short.id, shortJob.id, 5, 'succeeded'),
      await run(short.id, shortJob.id, 5, 'dead'),
      await run(short.id, shortJob.id, 5, 'cancelled'),
      await run(short.id, shortJob.id, 4, 'skipped'),
      await run(short.id, shortJob.id, 4, 'succeeded'),
    ];
    const unfinished = await run(short.id, shortJob.id, 5, 'pending');
    const recent = await run(short.id, shortJob.id, 1, 'succeeded');
    expect(await partitions()).toContain(`runs_${suffix(-40)}`);
    expect(await partitions()).not.toContain(`runs_${suffix(10)}`);

    const result = await retention.runOnce();

    // Days up to 10 ahead exist, for runs and attempts alike; the 40-day-old day is gone.
    const after = await partitions();
    for (const day of [0, 1, 9, 10]) {
      expect(after, `day ${day}`).toContain(`runs_${suffix(day)}`);
      expect(after, `day ${day}`).toContain(`run_attempts_${suffix(day)}`);
    }
    expect(after).not.toContain(`runs_${suffix(-40)}`);
    expect(after).not.toContain(`run_attempts_${suffix(-40)}`);
    expect(result?.created).toBeGreaterThanOrEqual(2 * 3); // at least days 8..10 were new
    expect(result?.dropped).toBe(2);
    expect(await exists(ancient)).toBe(0);
    // The short-retention tenant's finished runs past 3 days are deleted with their attempts, in
    // batches of two; its pending and recent runs stay, and so do the other tenant's.
    expect(result?.deleted).toBe(trimmed.length);
    for (const id of trimmed) expect(await exists(id), id).toBe(0);
    expect(await exists(unfinished)).toBe(2);
    expect(await exists(recent)).toBe(2);
    expect(await exists(kept)).toBe(2);

    // A second pass finds nothing left to do.
    expect(await retention.runOnce()).toEqual({ created: 0, dropped: 0, deleted: 0 });
  });

  it('clears day-old idempotency keys and nodes, and hour-old rate-limit buckets', async () => {
    const tenant = await insertTenant(db.pool);
    const job = await insertJob(db.pool, tenant.id, {
      schedule: { type: 'once', runAt: new Date(Date.now() + DAY) },
      url: 'http://127.0.0.1:9/never-called',
      partitions: db.partitions,
    });
    await db.pool.query(
      `INSERT INTO idempotency_keys (tenant_id, key, request_hash, job_id, created_at)
       VALUES ($1, 'old', '\\x00', $2, now() - interval '25 hours'), ($1, 'new', '\\x00', $2, now() - interval '23 hours')`,
      [tenant.id, job.id],
    );
    await db.pool.query(
      `INSERT INTO engine_nodes (id, roles, hostname, pid, heartbeat_at)
       VALUES ('gone', '{worker}', 'h', 1, now() - interval '25 hours'), ('here', '{worker}', 'h', 2, now())`,
    );
    await db.pool.query(
      `INSERT INTO rate_limit_buckets (key, tokens, updated_at)
       VALUES ('old', 1, now() - interval '61 minutes'), ('new', 1, now() - interval '59 minutes')`,
    );

    await retention.runOnce();

    const keys = await db.pool.query('SELECT key FROM idempotency_keys WHERE tenant_id = $1', [tenant.id]);
    expect(keys.rows).toEqual([{ key: 'new' }]);
    const nodes = await db.pool.query(`SELECT id FROM engine_nodes WHERE id IN ('gone', 'here')`);
    expect(nodes.rows).toEqual([{ id: 'here' }]);
    const buckets = await db.pool.query('SELECT key FROM rate_limit_buckets ORDER BY key');
    expect(buckets.rows).toEqual([{ key: 'new' }]);
  });

  it('skips the pass while another node holds the retention lock', async () => {
    const other = await db.pool.connect();
    try {
      await other.query('SELECT pg_advisory_lock(4242003)');
      expect(await retention.runOnce()).toBeNull();
      await other.query('SELECT pg_advisory_unlock(4242003)');
      expect(await retention.runOnce()).not.toBeNull();
    } finally {
      other.release();
    }
  });
});
