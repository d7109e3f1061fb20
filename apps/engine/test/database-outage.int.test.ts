// Surviving the database going away, with a real engine node process delivering every-second
// jobs to a loopback sink, on a PostgreSQL server of this file's own: every engine backend
// terminated mid-load; the server restarted mid-load; the database cut off without a reset (a
// proxy that stops forwarding) for longer than a partition lease. Each time: the node lives,
// the health check answers 503 while the database is away and 200 after, and every due
// occurrence is delivered once.
import { createServer } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startEngineNode, type EngineNode } from '../../../test/engine-nodes';
import { startSink, TEST_ENCRYPTION_KEY_MATERIAL, waitForRows, type Sink } from '../../../test/fixtures';
import {
  healthUntil,
  type HealthApi,
  type Load,
  startHealthApi,
  startLoad,
  stopLoad,
  tally,
} from '../../../test/outage';
import { type PrivatePostgres, startPrivatePostgres } from '../../../test/private-postgres';
import { startTcpProxy, type TcpProxy } from '../../../test/tcp-proxy';

const JOBS = 20;
const ENGINE_ENV = {
  BELFRY_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY_MATERIAL,
  BELFRY_LEASE_SECONDS: '3',
  BELFRY_RUN_LEASE_SECONDS: '6',
  BELFRY_SHUTDOWN_GRACE_SECONDS: '2',
  BELFRY_LOG_LEVEL: 'info',
};

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

describe('the database goes away under load', { timeout: 240_000 }, () => {
  let pg: PrivatePostgres;
  let sink: Sink;
  let node: EngineNode | undefined;
  let api: HealthApi | undefined;
  let load: Load | undefined;
  let proxy: TcpProxy | undefined;

  beforeAll(async () => {
    const port = Number(process.env.BELFRY_FAULT_PG_PORT) || (await freePort());
    pg = await startPrivatePostgres(port);
    sink = await startSink();
  });

  afterAll(async () => {
    await sink?.close();
    await pg?.destroy();
  });

  afterEach(async (ctx) => {
    proxy?.restore();
    if (node && (ctx.task.result?.state === 'fail' || process.env.BELFRY_OUTAGE_LOGS)) {
      // What the node said, for whoever reads a failure.
      const lines = node.logs.filter((l) => l.level >= 40 || l.msg !== 'attempt finished').slice(-80);
      process.stderr.write(`${[...lines.map((l) => JSON.stringify(l)), ...node.stderr].join('\n')}\n`);
    }
    if (load) await stopLoad(pg.pool, load).catch(() => {});
    await node?.stop(20_000);
    await api?.close();
    await proxy?.close();
    proxy = undefined;
    node = undefined;
    api = undefined;
    load = undefined;
    sink.deliveries.length = 0;
  });

  /** Engine node and health API on `url`, load running; resolves once deliveries flow. */
  async function underLoad(url: string, nodeId: string): Promise<void> {
    node = await startEngineNode({ databaseUrl: url, nodeId, env: ENGINE_ENV });
    api = await startHealthApi(url, pg.partitions);
    expect((await api.health()).status).toBe(200);
    load = await startLoad(pg.pool, pg.partitions, sink, JOBS);
    await sink.waitFor((all) => all.length >= JOBS * 3, 30_000);
  }

  /**
   * After the database is back at `returnedAt`: waits until every occurrence due up to a few
   * seconds later has a finished run, then checks the sink got each exactly once and the node
   * still runs. Prints the figures the operations guide quotes.
   */
  async function expectEveryOccurrenceOnce(label: string, returnedAt: number): Promise<void> {
    const l = load as Load;
    const firstAfter = await sink.waitFor((all) => all.some((d) => d.at >= returnedAt), 60_000);
    const firstDeliveryAt = Math.min(...firstAfter.filter((d) => d.at >= returnedAt).map((d) => d.at));
    const cutoff = Math.floor((returnedAt + 3_000 - l.firstAt) / l.everyMs) * l.everyMs + l.firstAt;
    const expected = Math.floor((cutoff - l.firstAt) / l.everyMs) + 1;
    await waitForRows<{ n: number }>(
      pg.pool,
      `SELECT count(*)::int AS n FROM runs
       WHERE job_id = ANY($1::text[]) AND scheduled_time <= $2 AND status = 'succeeded'`,
      [l.jobs.map((j) => j.id), new Date(cutoff)],
      (rows) => (rows[0]?.n ?? 0) >= expected * JOBS,
      90_000,
    ).catch(() => {}); // the tally below says what is missing
    const result = tally(sink, l, cutoff);
    process.stdout.write(
      `[${label}] occurrences due: ${result.expected}, missed: ${result.missed}, run twice: ${result.twice.length}, ` +
        `seconds from the database's return to the first delivery: ${((firstDeliveryAt - returnedAt) / 1000).toFixed(2)}\n`,
    );
    expect(result.twice).toEqual([]);
    expect(result.missed).toBe(0);
    expect(node?.process.exitCode).toBeNull();
    expect(node?.process.signalCode).toBeNull();
  }

  it('every engine backend terminated mid-load (pg_terminate_backend)', async () => {
    await underLoad(pg.url, 'outage-terminate');
    const terminated = await pg.terminateBackends();
    expect(terminated).toBeGreaterThan(0);
    const returnedAt = Date.now();
    // The health check's own connection was terminated too: it answers from a new one.
    await healthUntil(api as HealthApi, 200);
    await expectEveryOccurrenceOnce('terminate backends', returnedAt);
  });

  it('the server restarted mid-load (fast shutdown, down a few seconds, started again)', async () => {
    await underLoad(pg.url, 'outage-restart');
    await pg.stop();
    const away = await healthUntil(api as HealthApi, 503);
    expect(away.at(-1)?.status).toBe(503);
    await new Promise((r) => setTimeout(r, 3_000));
    expect((await (api as HealthApi).health()).status).toBe(503);
    await pg.start();
    const returnedAt = Date.now();
    await healthUntil(api as HealthApi, 200);
    await expectEveryOccurrenceOnce('restart', returnedAt);
  });

  it('the database cut off without a reset for longer than a partition lease, then restored', async () => {
    proxy = await startTcpProxy(pg.port);
    await underLoad(proxy.urlFor(pg.url), 'outage-cut');
    proxy.cut();
    const cutAt = Date.now();
    const away = await healthUntil(api as HealthApi, 503);
    expect(away.at(-1)?.status).toBe(503);
    // Nothing tells the node its leases are gone (no error, no reset): it judges by its own clock.
    await (node as EngineNode).waitForLog(
      (l) =>
        l.msg ===
          "partition leases expired by this node's own clock (not renewed in time); not scheduling those partitions" &&
        Number(l.time) > cutAt,
      30_000,
    );
    // Longer than a partition lease (3 s) and a run lease (6 s).
    await new Promise((r) => setTimeout(r, Math.max(0, cutAt + 9_000 - Date.now())));
    expect((await (api as HealthApi).health()).status).toBe(503);
    proxy.restore();
    const returnedAt = Date.now();
    await healthUntil(api as HealthApi, 200);
    await expectEveryOccurrenceOnce('cut off', returnedAt);
  });
});
