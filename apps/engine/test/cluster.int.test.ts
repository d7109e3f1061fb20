// Several engine nodes on one database: scheduler partitions spread evenly over them, a node
// that stops hands its partitions back for the others to take, and each node serves its
// Prometheus metrics.
import { createQueueClient, enqueueRuns, pgExecutor } from '@belfry/db';
import { newId } from '@belfry/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../test/db';
import { type EngineNode, startEngineNode } from '../../../test/engine-nodes';
import {
  insertJob,
  insertTenant,
  type Sink,
  startSink,
  TEST_ENCRYPTION_KEY_MATERIAL,
  waitForRows,
} from '../../../test/fixtures';
import { dbNow } from './support';

const ENV = {
  BELFRY_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY_MATERIAL,
  BELFRY_LEASE_SECONDS: '4',
  BELFRY_SHUTDOWN_GRACE_SECONDS: '1',
};

interface Share {
  owner: string | null;
  n: number;
}

describe('engine: a cluster of nodes', () => {
  let db: TestDatabase;
  let sink: Sink;
  const nodes: EngineNode[] = [];

  const shares = (pool = db.pool) =>
    pool
      .query<Share>(
        `SELECT owner, count(*)::int AS n FROM partition_leases
         WHERE owner IS NOT NULL AND expires_at > now() GROUP BY owner ORDER BY owner`,
      )
      .then((r) => r.rows);
  const waitForShares = (predicate: (rows: Share[]) => boolean, timeoutMs = 45_000) =>
    waitForRows<Share>(
      db.pool,
      `SELECT owner, count(*)::int AS n FROM partition_leases
       WHERE owner IS NOT NULL AND expires_at > now() GROUP BY owner ORDER BY owner`,
      [],
      predicate,
      timeoutMs,
    );

  beforeAll(async () => {
    db = await createTestDatabase();
    await db.pool.query('SELECT 1');
    sink = await startSink();
    for (const id of ['cluster-a', 'cluster-b', 'cluster-c']) {
      nodes.push(await startEngineNode({ databaseUrl: db.url, nodeId: id, env: ENV }));
    }
  });
  afterAll(async () => {
    for (const n of nodes) await n.stop(15_000);
    await sink?.close();
    await db?.destroy();
  });

  it('three nodes share the partitions evenly; a node stopped with SIGTERM hands its share to the others', async () => {
    const third = db.partitions / 3;
    const even = (rows: Share[]) =>
      rows.length === 3 &&
      rows.reduce((a, r) => a + r.n, 0) === db.partitions &&
      rows.every((r) => Math.abs(r.n - third) <= 1);
    await waitForShares(even);
    // Still even a heartbeat later (every node has looked at the cluster again).
    const settledAt = await dbNow(db.pool);
    await waitForRows(
      db.pool,
      'SELECT id FROM engine_nodes WHERE heartbeat_at > $1',
      [settledAt],
      (r) => r.length === 3,
    );
    expect(even(await shares())).toBe(true);

    const leaving = nodes[2]!;
    expect(await leaving.stop(15_000)).toBe(0);
    const held = await db.pool.query('SELECT partition FROM partition_leases WHERE owner = $1', [leaving.nodeId]);
    expect(held.rows).toEqual([]);
    const stopped = await db.pool.query<{ stopped: boolean }>(
      'SELECT stopped_at IS NOT NULL AS stopped FROM engine_nodes WHERE id = $1',
      [leaving.nodeId],
    );
    expect(stopped.rows[0]?.stopped).toBe(true);

    const rest = await waitForShares((rows) => rows.length === 2 && rows.every((r) => r.n === db.partitions / 2));
    expect(rest.map((r) => r.owner)).toEqual(['cluster-a', 'cluster-b']);

    // The remaining nodes still schedule jobs in every partition.
    const tenant = await insertTenant(db.pool);
    const runAt = new Date((await dbNow(db.pool)).getTime() + 1_000);
    const jobs = [];
    for (let i = 0; i < 24; i++) {
      jobs.push(
        await insertJob(db.pool, tenant.id, {
          schedule: { type: 'once', runAt },
          url: sink.url,
          partitions: db.partitions,
        }),
      );
    }
    await waitForRows<{ n: number }>(
      db.pool,
      `SELECT count(*)::int AS n FROM runs WHERE job_id = ANY($1) AND status = 'succeeded'`,
      [jobs.map((j) => j.id)],
      (r) => r[0]?.n === jobs.length,
    );
  });

  it('GET /metrics exposes lag, outcomes, partitions, takeovers and queue depth', async () => {
    const tenant = await insertTenant(db.pool);
    const job = await insertJob(db.pool, tenant.id, {
      schedule: { type: 'once', runAt: new Date(Date.now() + 500) },
      url: sink.url,
      partitions: db.partitions,
    });
    const [run] = await waitForRows<{ worker_id: string }>(
      db.pool,
      `SELECT worker_id FROM runs WHERE job_id = $1 AND status = 'succeeded'`,
      [job.id],
      (r) => r.length === 1,
    );
    // Three messages queued for an hour from now: the queue depth must count them.
    const boss = await createQueueClient(db.url, { max: 2 });
    const client = await db.pool.connect();
    try {
      const later = new Date(Date.now() + 3_600_000);
      const ids = [newId('run', later), newId('run', later), newId('run', later)];
      await client.query('BEGIN');
      await client.query(
        `INSERT INTO runs (id, tenant_id, job_id, scheduled_time, status, trigger, priority)
         SELECT id, $2, $3, $4, 'pending', 'manual', 'low' FROM unnest($1::text[]) AS id`,
        [ids, tenant.id, job.id, later],
      );
      await enqueueRuns(
        boss,
        pgExecutor(client),
        ids.map((runId) => ({
          runId,
          route: { lane: 'push' as const, tenantId: tenant.id, priority: 'low' as const },
          scheduledTime: later,
        })),
      );
      await client.query('COMMIT');
    } finally {
      client.release();
      await boss.stop({ graceful: false, close: true });
    }

    const node = nodes.find((n) => n.nodeId === run?.worker_id)!;
    const started = await node.waitForLog((l) => l.msg === 'engine node started');
    const port = Number(started.metricsPort);
    expect(port).toBeGreaterThan(0);
    const res = await fetch(`http://127.0.0.1:${port}/metrics`);
    expect(res.status).toBe(200);
    const text = await res.text();
    const value = (series: string) => {
      const line = text.split('\n').find((l) => l.startsWith(`${series} `));
      return line === undefined ? undefined : Number(line.slice(series.length + 1));
    };
    expect(value('belfry_start_lag_seconds_count')).toBeGreaterThanOrEqual(1);
    expect(value('belfry_runs_total{outcome="succeeded"}')).toBeGreaterThanOrEqual(1);
    const owned = await db.pool.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM partition_leases WHERE owner = $1',
      [node.nodeId],
    );
    expect(value('belfry_partitions_owned')).toBe(owned.rows[0]?.n);
    expect(value('belfry_lease_takeovers_total')).toBeGreaterThanOrEqual(0);
    expect(value('belfry_queue_depth{priority="low"}')).toBeGreaterThanOrEqual(3);
    expect(value('belfry_queue_depth{priority="high"}')).toBe(0);
    expect((await fetch(`http://127.0.0.1:${port}/other`)).status).toBe(404);
  });
});
