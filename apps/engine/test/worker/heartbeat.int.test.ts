// The lease heartbeat on its own: one statement extends the leases of every attempt in flight;
// attempts already stopped or being recorded are left alone; a run that was cancelled (or taken
// back) is reported lost.
import { claimRuns, type QueueClient } from '@belfry/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertJob, insertTenant } from '../../../../test/fixtures';
import { createLogger } from '../../src/logger';
import { LeaseHeartbeat } from '../../src/worker/heartbeat';
import { executionOf, queueRuns, createQueueTestDatabase, type QueueTestDatabase } from '../support';

const WORKER = 'heartbeat-test';

describe('LeaseHeartbeat', () => {
  let db: QueueTestDatabase;
  let boss: QueueClient;

  beforeAll(async () => {
    db = await createQueueTestDatabase();
    boss = db.boss;
  });
  afterAll(async () => {
    await db?.destroy();
  });

  const execution = executionOf;
  const leases = async (ids: string[]) =>
    Object.fromEntries(
      (
        await db.pool.query<{ id: string; ms: number }>(
          `SELECT id, (EXTRACT(EPOCH FROM lease_expires_at - now()) * 1000)::float8 AS ms FROM runs WHERE id = ANY($1)`,
          [ids],
        )
      ).rows.map((r) => [r.id, r.ms]),
    );

  it('extends the leases of attempts in flight and reports the ones this worker lost', async () => {
    const tenant = await insertTenant(db.pool);
    const job = await insertJob(db.pool, tenant.id, {
      schedule: { type: 'once', runAt: new Date(Date.now() + 3_600_000) },
      url: 'http://127.0.0.1:9/never-called',
      partitions: db.partitions,
    });
    const now = Math.floor(Date.now() / 1000) * 1000;
    const queued = await queueRuns(db.pool, boss, {
      tenantId: tenant.id,
      jobId: job.id,
      times: [0, 1, 2, 3, 4].map((i) => new Date(now - 10_000 + i)),
    });
    // Claimed with a short lease; the heartbeat extends to 30 s.
    const claimed = await claimRuns(
      db.pool,
      WORKER,
      2_000,
      queued.map((r) => r.id),
      queued.map((r) => r.scheduled_time),
    );
    const [live, cancelled, stopped, finishing, elsewhere] = claimed.sort((a, b) => (a.id < b.id ? -1 : 1));
    await db.pool.query(`UPDATE runs SET status = 'cancelled' WHERE id = $1`, [cancelled!.id]);
    await db.pool.query(`UPDATE runs SET worker_id = 'another-node' WHERE id = $1`, [elsewhere!.id]);
    const executions = [
      execution(live!),
      execution(cancelled!),
      execution(stopped!, { reason: 'shutdown' }),
      execution(finishing!, { finished: true }),
      execution(elsewhere!),
    ];
    const lost: string[] = [];
    const heartbeat = new LeaseHeartbeat(
      db.pool,
      { workerId: WORKER, runLeaseMs: 30_000, intervalMs: 60_000 },
      () => executions,
      (runId) => lost.push(runId),
      createLogger('silent', {}),
    );

    await heartbeat.beat();

    expect(lost.sort()).toEqual([cancelled!.id, elsewhere!.id].sort());
    const after = await leases([live!.id, stopped!.id, finishing!.id]);
    expect(after[live!.id]).toBeGreaterThan(25_000);
    // Stopped and finishing attempts keep the lease they had.
    expect(after[stopped!.id]).toBeLessThan(2_001);
    expect(after[finishing!.id]).toBeLessThan(2_001);
  });

  it('does nothing without attempts in flight', async () => {
    const lost: string[] = [];
    const heartbeat = new LeaseHeartbeat(
      db.pool,
      { workerId: WORKER, runLeaseMs: 30_000, intervalMs: 60_000 },
      () => [],
      (runId) => lost.push(runId),
      createLogger('silent', {}),
    );
    await heartbeat.beat();
    expect(lost).toEqual([]);
  });
});
