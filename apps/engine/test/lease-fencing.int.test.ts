// The scheduler's fencing lock against the lease keeper, on a real database: while a scheduler
// transaction holds its lease rows (lockPartitionLeases, FOR KEY SHARE), its own node's lease
// renewal and release go through without waiting, and a takeover by another node (which bumps
// the epoch) waits for that transaction — after which the old owner's fenced writes are refused.
//
// Waiting is detected by the lock, never by a clock: the lease keepers here run on sessions with
// a short lock_timeout, so a statement that waits for a row lock fails (55P03) instead of
// finishing late; a takeover expected to wait is seen waiting in pg_stat_activity.
import { createQueueClient, lockPartitionLeases, type QueueClient } from '@belfry/db';
import pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../test/db';
import { insertJob, insertTenant, waitForRows } from '../../../test/fixtures';
import { LeaseKeeper } from '../src/cluster/lease-keeper';
import { createLogger } from '../src/logger';
import { DEFAULT_SCHEDULER_CONFIG, Scheduler } from '../src/scheduler/scheduler';
import { dbNow, range } from './support';

const log = createLogger('silent', {});
const URL = 'http://127.0.0.1:9/never-called';

describe('partition lease fencing (FOR KEY SHARE and the (partition, epoch) key)', () => {
  let db: TestDatabase;
  /** sessions that give up on a row lock after 1 s (lock_timeout) instead of waiting for it */
  let strict: pg.Pool;
  let queue: QueueClient;
  let all: number[];

  /** A lease keeper on `strict` sessions, leases long enough that its own clock never drops them. */
  const keeper = (nodeId: string) => new LeaseKeeper(strict, { nodeId, leaseMs: 60_000 }, log);

  /** A scheduler batch transaction of `nodeId` after its fencing lock: answers what it validated. */
  const openSchedulerTransaction = async (nodeId: string, held: { partition: number; epoch: string }[]) => {
    const client = await db.pool.connect();
    await client.query('BEGIN');
    const valid = await lockPartitionLeases(client, nodeId, held);
    const pid = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
    return {
      valid,
      pid,
      async end(how: 'COMMIT' | 'ROLLBACK' = 'COMMIT') {
        try {
          await client.query(how);
        } finally {
          client.release();
        }
      },
    };
  };

  const leases = async () =>
    (
      await db.pool.query<{ partition: number; owner: string | null; epoch: string; left_s: number | null }>(
        `SELECT partition, owner, epoch::text AS epoch, extract(epoch FROM expires_at - now())::float8 AS left_s
         FROM partition_leases ORDER BY partition`,
      )
    ).rows;

  /** A job in some partition with an occurrence due now. */
  const dueJob = async () => {
    const tenant = await insertTenant(db.pool);
    const second = Math.floor((await dbNow(db.pool)).getTime() / 1000) * 1000;
    const job = await insertJob(db.pool, tenant.id, {
      schedule: { type: 'interval', everySeconds: 1, anchor: new Date(second - 60_000) },
      nextRunAt: new Date(second),
      url: URL,
      partitions: db.partitions,
    });
    const { rows } = await db.pool.query<{ partition: number }>('SELECT partition FROM jobs WHERE id = $1', [job.id]);
    return { id: job.id, partition: rows[0]!.partition };
  };
  const runsOf = async (jobId: string) =>
    (await db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM runs WHERE job_id = $1', [jobId])).rows[0]?.n;
  /** A due job, node fence-a holding its partition, and fence-a's scheduler transaction open on that lease. */
  const schedulerHoldingDueJob = async () => {
    const job = await dueJob();
    const p = job.partition;
    const a = keeper('fence-a');
    await a.tick();
    const mine = a.partitions().find((h) => h.partition === p)!;
    const tx = await openSchedulerTransaction('fence-a', [mine]);
    return { job, p, a, mine, tx };
  };

  beforeAll(async () => {
    db = await createTestDatabase();
    strict = new pg.Pool({ connectionString: db.url, max: 4, options: '-c lock_timeout=1000' });
    queue = await createQueueClient(db.url, { max: 2 });
    all = range(db.partitions);
  });
  beforeEach(async () => {
    await db.pool.query('UPDATE jobs SET next_run_at = NULL WHERE next_run_at IS NOT NULL');
    await db.pool.query('UPDATE partition_leases SET owner = NULL, expires_at = NULL');
  });
  afterAll(async () => {
    await queue?.stop({ graceful: false, close: true }).catch(() => {});
    await strict?.end();
    await db?.destroy();
  });

  it('epoch is a key column: partition_leases_partition_epoch_key is unique, on plain columns, not partial', async () => {
    // What makes an UPDATE of epoch take FOR UPDATE (and so wait for FOR KEY SHARE): PostgreSQL
    // counts only unique indexes a foreign key could use — no expressions, no predicate.
    const { rows } = await db.pool.query<{ unique: boolean; plain: boolean; columns: string[] }>(
      `SELECT i.indisunique AS unique, i.indexprs IS NULL AND i.indpred IS NULL AS plain,
              ARRAY(SELECT a.attname::text FROM unnest(i.indkey) WITH ORDINALITY k(attnum, n)
                    JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum ORDER BY k.n) AS columns
       FROM pg_index i WHERE i.indexrelid = 'partition_leases_partition_epoch_key'::regclass`,
    );
    expect(rows).toEqual([{ unique: true, plain: true, columns: ['partition', 'epoch'] }]);
  });

  it("a scheduler transaction's fencing lock does not hold up its node's lease renewal", async () => {
    const a = keeper('fence-a');
    await a.tick(); // no node seen alive: it takes every partition
    const held = a.partitions().sort((x, y) => x.partition - y.partition);
    expect(held.map((h) => h.partition)).toEqual(all);
    // Leases shortened to 30 s, so a renewal (to 60 s) is visible. A non-key update: no wait either.
    await strict.query(`UPDATE partition_leases SET expires_at = now() + interval '30 seconds'`);

    const tx = await openSchedulerTransaction('fence-a', held);
    try {
      expect(tx.valid).toEqual(all);
      await a.tick(); // renews; a wait for the fencing lock would fail it (lock_timeout)
      const renewed = await leases();
      expect(renewed.filter((l) => l.owner === 'fence-a' && (l.left_s ?? 0) > 45).map((l) => l.partition)).toEqual(all);
      expect(
        a
          .partitions()
          .map((h) => h.partition)
          .sort((x, y) => x - y),
      ).toEqual(all);
      expect(renewed.map((l) => l.epoch)).toEqual(held.map((h) => h.epoch));
    } finally {
      await tx.end();
    }
  });

  it('a takeover waits for the open scheduler transaction, then bumps the epoch; the old owner is fenced out', async () => {
    const { job, p, a, mine, tx } = await schedulerHoldingDueJob();
    let takeover: Promise<pg.QueryResult> | undefined;
    const taker = await db.pool.connect();
    try {
      expect(tx.valid).toEqual([p]);
      // Node a renews, then its lease of p runs out (as if a stalled past it): non-key updates,
      // which do not wait; the key-share lock stays on each new version of the row.
      await a.tick();
      await strict.query(`UPDATE partition_leases SET expires_at = now() - interval '1 second' WHERE partition = $1`, [
        p,
      ]);

      // Another node's lease keeper passes the locked row by (FOR UPDATE SKIP LOCKED) ...
      const b = keeper('fence-b');
      await b.tick();
      expect(b.partitions()).toEqual([]);
      // ... and a takeover written as a plain UPDATE of epoch waits for the transaction.
      await expect(
        strict.query(`UPDATE partition_leases SET owner = 'fence-c', epoch = epoch + 1 WHERE partition = $1`, [p]),
      ).rejects.toMatchObject({ code: '55P03' });
      const takerPid = (await taker.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
      takeover = taker.query(`UPDATE partition_leases SET owner = 'fence-b', epoch = epoch + 1 WHERE partition = $1`, [
        p,
      ]);
      takeover.catch(() => {}); // awaited below; a failure must not go unhandled meanwhile
      const waiting = await waitForRows<{ blockers: number[] }>(
        db.pool,
        `SELECT pg_blocking_pids(pid) AS blockers FROM pg_stat_activity WHERE pid = $1 AND wait_event_type = 'Lock'`,
        [takerPid],
        (rows) => rows.length === 1,
      );
      expect(waiting[0]?.blockers).toEqual([tx.pid]);
    } finally {
      await tx.end();
    }
    try {
      expect((await takeover)?.rowCount).toBe(1);
    } finally {
      taker.release();
    }
    const row = (await leases()).find((l) => l.partition === p);
    expect(row).toMatchObject({ owner: 'fence-b', epoch: String(BigInt(mine.epoch) + 1n) });

    // Node a still believes it holds p (its own clock says so): its next batch writes nothing.
    const scheduler = new Scheduler(db.pool, queue, a, { ...DEFAULT_SCHEDULER_CONFIG, nodeId: 'fence-a' }, log);
    const result = await scheduler.scanOnce();
    expect(result).toMatchObject({ scanned: 1, materialized: 0, fencedOut: [p] });
    expect(await runsOf(job.id)).toBe(0);
    expect(a.partitions().map((h) => h.partition)).not.toContain(p);
  });

  it('a release does not wait for the scheduler transaction, yet no one takes the partition before it ends', async () => {
    const { job, p, a, mine, tx } = await schedulerHoldingDueJob();
    const b = keeper('fence-b');
    try {
      expect(tx.valid).toEqual([p]);
      await a.stop(); // node a hands every partition back while its batch still runs
      const released = await leases();
      expect(released.filter((l) => l.owner !== null)).toEqual([]);
      expect(released.find((l) => l.partition === p)?.epoch).toBe(mine.epoch); // a release keeps the epoch
      await b.tick(); // takes the free partitions, but passes p by
      expect(b.partitions().map((h) => h.partition)).not.toContain(p);
      expect(b.partitions()).toHaveLength(db.partitions - 1);
    } finally {
      await tx.end();
    }
    await b.tick();
    expect(b.partitions().find((h) => h.partition === p)).toEqual({
      partition: p,
      epoch: String(BigInt(mine.epoch) + 1n),
    });

    // A batch of node a that read its partitions before the release is refused.
    const stale = { partitions: () => [mine], forget: () => {} };
    const byA = new Scheduler(db.pool, queue, stale, { ...DEFAULT_SCHEDULER_CONFIG, nodeId: 'fence-a' }, log);
    expect(await byA.scanOnce()).toMatchObject({ scanned: 1, materialized: 0, fencedOut: [p] });
    expect(await runsOf(job.id)).toBe(0);
    // The new owner schedules it.
    const byB = new Scheduler(db.pool, queue, b, { ...DEFAULT_SCHEDULER_CONFIG, nodeId: 'fence-b' }, log);
    expect(await byB.scanOnce()).toMatchObject({ fencedOut: [] });
    expect(await runsOf(job.id)).toBeGreaterThan(0);
  });
});
