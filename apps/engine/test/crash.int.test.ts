// Crash safety with real engine processes: kill -9 mid-run, SIGSTOP past the partition and
// run leases, and the stale completion of a worker that wakes up after losing its lease.
import { afterEach, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../test/db';
import { startEngineNode, type EngineNode } from '../../../test/engine-nodes';
import {
  insertJob,
  insertTenant,
  startSink,
  waitForRows,
  TEST_ENCRYPTION_KEY_MATERIAL,
  type Sink,
} from '../../../test/fixtures';

const FAST = {
  BELFRY_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY_MATERIAL,
  BELFRY_LEASE_SECONDS: '3',
  BELFRY_RUN_LEASE_SECONDS: '3',
  BELFRY_SHUTDOWN_GRACE_SECONDS: '1',
};

describe('engine crash safety', () => {
  let db: TestDatabase | undefined;
  let sink: Sink | undefined;
  const nodes: EngineNode[] = [];

  const start = async (nodeId: string, env: Record<string, string> = {}) => {
    const node = await startEngineNode({ databaseUrl: (db as TestDatabase).url, nodeId, env: { ...FAST, ...env } });
    nodes.push(node);
    return node;
  };

  afterEach(async () => {
    for (const n of nodes.splice(0)) {
      n.signal('SIGCONT');
      await n.stop(10_000);
    }
    await sink?.close();
    await db?.destroy();
  });

  it('kill -9 of the node running a run: another node completes it with the same run id', async () => {
    db = await createTestDatabase();
    sink = await startSink();
    let first = true;
    sink.respond = () => {
      if (first) {
        first = false;
        return { status: 200, delayMs: 120_000 }; // never answers in time: the node dies first
      }
      return { status: 200 };
    };
    const a = await start('kill-a');
    const b = await start('kill-b');
    const tenant = await insertTenant(db.pool);
    const job = await insertJob(db.pool, tenant.id, {
      schedule: { type: 'once', runAt: new Date(Date.now() + 1000) },
      url: sink.url,
      partitions: db.partitions,
    });
    await sink.waitFor((all) => all.length === 1);
    const [running] = await waitForRows<{ id: string; worker_id: string }>(
      db.pool,
      `SELECT id, worker_id FROM runs WHERE job_id = $1 AND status = 'running'`,
      [job.id],
      (rows) => rows.length === 1,
    );
    const victim = running?.worker_id === 'kill-a' ? a : b;
    victim.signal('SIGKILL');
    await victim.exited;

    const deliveries = await sink.waitFor((all) => all.length === 2, 30_000);
    expect(deliveries[1]?.headers['webhook-id']).toBe(deliveries[0]?.headers['webhook-id']);
    expect(deliveries[1]?.headers['belfry-attempt']).toBe('2');
    const rows = await waitForRows<{ id: string; status: string; attempt: number }>(
      db.pool,
      'SELECT id, status, attempt FROM runs WHERE job_id = $1',
      [job.id],
      (r) => r[0]?.status === 'succeeded',
    );
    expect(rows).toEqual([{ id: running?.id, status: 'succeeded', attempt: 2 }]);
    const attempts = await db.pool.query(
      'SELECT attempt, status, worker_id, error FROM run_attempt_history WHERE run_id = $1 ORDER BY attempt',
      [running?.id],
    );
    expect(attempts.rows[0]).toMatchObject({ attempt: 1, status: 'failed', worker_id: victim.nodeId });
    expect(attempts.rows[0].error).toMatch(/lease expired/);
    expect(attempts.rows[1]).toMatchObject({ attempt: 2, status: 'succeeded' });
    expect(attempts.rows[1].worker_id).not.toBe(victim.nodeId);
  });

  it('a node stopped past its leases writes nothing when it wakes; no occurrence runs twice', async () => {
    db = await createTestDatabase();
    sink = await startSink();
    const a = await start('stop-a');
    await a.waitForLog((l) => l.msg === 'partitions acquired');
    const tenant = await insertTenant(db.pool);
    const jobs = [];
    for (let i = 0; i < 6; i++) {
      jobs.push(
        await insertJob(db.pool, tenant.id, {
          schedule: { type: 'interval', everySeconds: 1, anchor: new Date(Math.floor(Date.now() / 1000) * 1000) },
          url: sink.url,
          partitions: db.partitions,
        }),
      );
    }
    await sink.waitFor((all) => all.length >= 12);
    const b = await start('stop-b');
    a.signal('SIGSTOP');
    const stoppedAt = Date.now();
    // b takes every partition once a's leases expire
    await b.waitForLog((l) => l.msg === 'partitions acquired' && Number(l.owned) === db?.partitions, 30_000);
    const before = sink.deliveries.length;
    await sink.waitFor((all) => all.length >= before + 12);
    a.signal('SIGCONT');
    await a.waitForLog(
      (l) =>
        (l.msg === 'partition leases lost' ||
          l.msg === 'fenced out of partitions; not writing for them' ||
          l.msg ===
            "partition leases expired by this node's own clock (not renewed in time); not scheduling those partitions") &&
        Number(l.time) > stoppedAt,
      30_000,
    );
    const resumed = sink.deliveries.length;
    await sink.waitFor((all) => all.length >= resumed + 18);

    // Every delivered occurrence is unique per job, and there is one scheduled run per occurrence.
    const seen = new Set<string>();
    for (const d of sink.deliveries) {
      const key = `${d.headers['belfry-job-id']}@${d.headers['belfry-scheduled-time']}#${d.headers['belfry-attempt']}`;
      expect(seen.has(key), `delivered twice: ${key}`).toBe(false);
      seen.add(key);
    }
    const dupes = await db.pool.query(
      `SELECT job_id, scheduled_time, count(*) FROM runs WHERE trigger = 'schedule' GROUP BY 1, 2 HAVING count(*) > 1`,
    );
    expect(dupes.rows).toEqual([]);
    const runs = await db.pool.query(`SELECT count(*)::int AS n FROM runs WHERE job_id = ANY($1)`, [
      jobs.map((j) => j.id),
    ]);
    expect(runs.rows[0].n).toBeGreaterThan(20);
  });

  it('a worker that loses its run lease while the handler runs cannot record its stale outcome', async () => {
    db = await createTestDatabase();
    sink = await startSink();
    sink.respond = (d) => (d.headers['belfry-attempt'] === '1' ? { status: 200, delayMs: 6_000 } : { status: 200 });
    const a = await start('stale-a', { BELFRY_ROLES: 'scheduler,worker' });
    const tenant = await insertTenant(db.pool);
    const job = await insertJob(db.pool, tenant.id, {
      schedule: { type: 'once', runAt: new Date(Date.now() + 500) },
      url: sink.url,
      timeoutSeconds: 30,
      partitions: db.partitions,
    });
    await sink.waitFor((all) => all.length === 1);
    a.signal('SIGSTOP');
    const b = await start('stale-b', { BELFRY_ROLES: 'worker' });
    await sink.waitFor((all) => all.length === 2, 30_000);
    await waitForRows<{ status: string }>(
      db.pool,
      'SELECT status FROM runs WHERE job_id = $1',
      [job.id],
      (r) => r[0]?.status === 'succeeded',
    );
    a.signal('SIGCONT');
    await a.waitForLog((l) => l.msg === 'stale completion rejected: this worker no longer holds the run', 30_000);
    const runs = await db.pool.query('SELECT status, attempt, worker_id FROM runs WHERE job_id = $1', [job.id]);
    expect(runs.rows).toEqual([{ status: 'succeeded', attempt: 2, worker_id: b.nodeId }]);
    const attempts = await db.pool.query(
      'SELECT attempt, status, worker_id FROM run_attempt_history WHERE job_id = $1 ORDER BY attempt',
      [job.id],
    );
    expect(attempts.rows).toEqual([
      { attempt: 1, status: 'failed', worker_id: 'stale-a' },
      { attempt: 2, status: 'succeeded', worker_id: 'stale-b' },
    ]);
  });
});
