// The worker pool in-process, on real PostgreSQL, pg-boss and LISTEN/NOTIFY, delivering to a
// loopback target: it fetches only the lanes it serves, each within its own slot limit (read
// each time, so a lane can open and close), and a run that arrives in a lane its kind does not
// belong to is released and re-queued where its kind routes it — then delivered there. Runs
// claimed ahead of their due time wait without holding an execution slot (as many of them as
// the lane has slots), and the lane never calls more targets at once than it has slots.
import { type QueueClient, queuedMessages } from '@belfry/db';
import { createHandlerRegistry, defaultHandlers, type HandlerRegistry } from '@belfry/handlers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertJob, insertTenant, type Sink, startSink, TEST_KEYRING, waitForRows } from '../../../../test/fixtures';
import { DbClock } from '../../src/db-clock';
import { createLogger } from '../../src/logger';
import { SigningSecrets } from '../../src/worker/secrets';
import { TenantLimits } from '../../src/worker/tenant-limits';
import { Wakeups } from '../../src/worker/wakeups';
import { WorkerPool } from '../../src/worker/worker-pool';
import { queueRuns, createQueueTestDatabase, type QueueTestDatabase } from '../support';

const log = createLogger('silent', {});

describe('WorkerPool', () => {
  let db: QueueTestDatabase;
  let boss: QueueClient;
  let sink: Sink;
  let handlers: HandlerRegistry;
  let clock: DbClock;
  let wakeups: Wakeups;
  let workers: WorkerPool;
  let tenantId: string;
  let jobId: string;
  let containerSlots = 0;
  let limits: TenantLimits;

  beforeAll(async () => {
    db = await createQueueTestDatabase(4);
    boss = db.boss;
    sink = await startSink();
    handlers = createHandlerRegistry(defaultHandlers({ allowPrivateTargets: true }));
    clock = new DbClock(db.pool);
    await clock.sync();
    limits = new TenantLimits(db.pool, 50);
    await limits.refresh();
    wakeups = new Wakeups(db.pool, clock, { url: db.url, discoveryMs: 300, lanes: ['push', 'container'] }, log);
    workers = new WorkerPool({
      pool: db.pool,
      boss,
      handlers,
      secrets: new SigningSecrets(db.pool, TEST_KEYRING),
      limits,
      wakeups,
      clock,
      config: {
        workerId: 'pool-test',
        lanes: [
          { lane: 'push', slots: () => 10 },
          { lane: 'container', slots: () => containerSlots },
        ],
        batchSize: 50,
        runLeaseMs: 30_000,
        heartbeatMs: 10_000,
        shutdownGraceMs: 5_000,
      },
      log,
    });
    workers.start();
    await wakeups.start();
    tenantId = (await insertTenant(db.pool)).id;
    jobId = (
      await insertJob(db.pool, tenantId, {
        schedule: { type: 'once', runAt: new Date(Date.now() + 3_600_000) },
        url: sink.url,
        partitions: db.partitions,
      })
    ).id;
  });
  afterAll(async () => {
    await wakeups?.stop();
    await workers?.stop();
    await handlers?.close();
    await sink?.close();
    await db?.destroy();
  });

  let offset = 0;
  const due = () => [new Date(Math.floor(clock.now() / 1000) * 1000 - 60_000 + offset++)];
  /** Waits until every one of `ids` has succeeded. */
  const allSucceeded = (ids: string[], timeoutMs?: number) =>
    waitForRows(
      db.pool,
      `SELECT id FROM runs WHERE id = ANY($1) AND status = 'succeeded'`,
      [ids],
      (rows) => rows.length === ids.length,
      timeoutMs,
    );
  const runRow = (id: string) =>
    db.pool.query<{ status: string; attempt: number }>('SELECT status, attempt FROM runs WHERE id = $1', [id]);

  it('delivers the runs of the push lane', async () => {
    const runs = await queueRuns(db.pool, boss, { tenantId, jobId, times: [...due(), ...due(), ...due()] });
    await allSucceeded(runs.map((r) => r.id));
    const delivered = sink.deliveries.map((d) => d.headers['webhook-id']);
    for (const r of runs) expect(delivered).toContain(r.id);
    expect(workers.inFlight).toBe(0);
  });

  it('takes nothing from a lane whose slots are closed, and opens it when they open', async () => {
    // An http run that ended up in the container lane (as if its job had been a container job).
    const [stray] = await queueRuns(db.pool, boss, {
      tenantId,
      jobId,
      times: due(),
      route: { lane: 'container', tenantId, priority: 'normal' },
    });
    // A push run queued after it is delivered while the container lane has no slots...
    const [later] = await queueRuns(db.pool, boss, { tenantId, jobId, times: due() });
    await allSucceeded([later!.id]);
    // ...and the container lane's run is still waiting, untouched, after its queue was found ready
    // (the pool hears of it first: it subscribed before this test did).
    const containerQueue = `c.${tenantId}.normal`;
    await new Promise<void>((resolve) => {
      const heard = (queues: string[]) => {
        if (!queues.includes(containerQueue)) return;
        wakeups.off('ready', heard);
        resolve();
      };
      wakeups.on('ready', heard);
    });
    expect((await runRow(stray!.id)).rows).toEqual([{ status: 'pending', attempt: 0 }]);
    expect((await queuedMessages(db.pool, { runIds: [stray!.id], waitingOnly: true })).map((m) => m.name)).toEqual([
      containerQueue,
    ]);

    // One container slot: the run is fetched through it, found to be an http run, released to the
    // push lane and delivered there on its next attempt.
    containerSlots = 1;
    await allSucceeded([stray!.id]);
    const attempts = await db.pool.query(
      'SELECT attempt, status, error FROM run_attempt_history WHERE run_id = $1 ORDER BY attempt',
      [stray!.id],
    );
    expect(attempts.rows).toEqual([
      { attempt: 1, status: 'cancelled', error: 'rerouted: the target is now http, which runs in the push lane' },
      { attempt: 2, status: 'succeeded', error: null },
    ]);
    expect(sink.deliveries.filter((d) => d.headers['webhook-id'] === stray!.id)).toHaveLength(1);
  });

  it('claims as many runs ahead as it has slots besides them, and calls at most its slots at once', async () => {
    // 20 runs due in ~2.5 s, claimable 2 s ahead, on a lane of 10 slots; each call takes 400 ms.
    const dueAt = Math.ceil((clock.now() + 2_500) / 1000) * 1000;
    const times = Array.from({ length: 20 }, (_, i) => new Date(dueAt + i));
    let open = 0;
    let most = 0;
    sink.respond = () => {
      open++;
      most = Math.max(most, open);
      setTimeout(() => open--, 400);
      return { status: 200, delayMs: 400 };
    };
    try {
      const runs = await queueRuns(db.pool, boss, { tenantId, jobId, times, claimAheadMs: 2_000 });
      const ids = runs.map((r) => r.id);
      // All 20 are claimed before they are due: the 10 waiting runs of the first claim did not
      // fill the slots the second claim needed.
      const claimed = await waitForRows<{ n: number; now: Date }>(
        db.pool,
        `SELECT count(*)::int AS n, now() FROM runs WHERE id = ANY($1) AND status = 'running'`,
        [ids],
        (rows) => rows[0]?.n === 20,
        10_000,
      );
      expect(claimed[0]!.now.getTime()).toBeLessThan(dueAt);
      await allSucceeded(ids);
      const delivered = sink.deliveries.filter((d) => ids.includes(String(d.headers['webhook-id'])));
      expect(delivered).toHaveLength(20);
      for (const d of delivered) expect(d.at).toBeGreaterThanOrEqual(dueAt);
      // 10 slots: 10 calls at once, the other 10 runs waiting for a slot once due.
      expect(most).toBe(10);
      expect(workers.inFlight).toBe(0);
    } finally {
      sink.respond = () => ({ status: 200 });
    }
  });

  it("claims many tenants' queues in shared transactions, within each tenant's limit, and gives every slot back", async () => {
    // 12 tenants allowed one run at a time, two runs each, all due at the same instant: a pass
    // over their queues picks 10 (the lane's slots), claimed as 8 + 2 queues per transaction.
    const tenants = await Promise.all(Array.from({ length: 12 }, () => insertTenant(db.pool, { maxConcurrency: 1 })));
    await limits.refresh();
    const dueAt = Math.ceil((clock.now() + 2_000) / 1000) * 1000;
    sink.respond = () => ({ status: 200, delayMs: 200 });
    try {
      const runs = (
        await Promise.all(
          tenants.map(async ({ id }) => {
            const job = await insertJob(db.pool, id, {
              schedule: { type: 'once', runAt: new Date(Date.now() + 3_600_000) },
              url: sink.url,
              partitions: db.partitions,
            });
            return queueRuns(db.pool, boss, {
              tenantId: id,
              jobId: job.id,
              times: [new Date(dueAt), new Date(dueAt + 1)],
            });
          }),
        )
      ).flat();
      const ids = runs.map((r) => r.id);
      await allSucceeded(ids, 20_000);
      const delivered = sink.deliveries.filter((d) => ids.includes(String(d.headers['webhook-id'])));
      expect(delivered).toHaveLength(24);
      // One run of a tenant at a time: its second call began after its first was answered.
      const byTenant = new Map<string, number[]>();
      for (const d of delivered) {
        const tenant = runs.find((r) => r.id === d.headers['webhook-id'])!.tenant_id;
        byTenant.set(tenant, [...(byTenant.get(tenant) ?? []), d.at]);
      }
      for (const at of byTenant.values()) expect(Math.abs(at[1]! - at[0]!)).toBeGreaterThanOrEqual(190);
      // The first attempts started by one claim transaction share its now(): 8 tenants' queues.
      // (At least: two transactions begun in the same microsecond share it too.)
      const { rows } = await db.pool.query<{ n: number }>(
        `SELECT count(DISTINCT tenant_id)::int AS n FROM run_attempt_history WHERE run_id = ANY($1) AND attempt = 1
          GROUP BY started_at ORDER BY n DESC LIMIT 1`,
        [ids],
      );
      expect(rows[0]?.n).toBeGreaterThanOrEqual(8);
      expect(workers.inFlight).toBe(0);
    } finally {
      sink.respond = () => ({ status: 200 });
    }
    // Every slot came back: the next run is claimed and delivered as usual.
    const [next] = await queueRuns(db.pool, boss, { tenantId, jobId, times: due() });
    await allSucceeded([next!.id]);
  });
});
