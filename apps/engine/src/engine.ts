// Composition root of an engine node: builds the loops its roles need and owns the order in
// which they start and stop. Scheduler role: lease keeper + scheduler (roles/scheduler-role.ts).
// Worker role: wake-ups, worker pool, reaper (roles/worker-role.ts). Every node: registry
// heartbeat, alerts (roles/alerts-role.ts), retention (one node at a time), metrics.
import {
  createPool,
  createQueueClient,
  type DatabaseTarget,
  migrate,
  queueDepth,
  reachesServerDirectly,
  requireDirectConnection,
  resolveDatabase,
  warmPool,
} from '@belfry/db';
import { warmHttpClient } from '@belfry/handlers';
import { FailureStreak } from '@belfry/log';
import { NodeRegistry } from './cluster/node-registry';
import { DbClock } from './db-clock';
import type { EngineEnv } from './env';
import type { Log } from './logger';
import { Retention } from './maintenance/retention';
import { Metrics } from './metrics';
import { startAlerts } from './roles/alerts-role';
import type { RoleContext } from './roles/role-context';
import { type SchedulerRole, startSchedulerRole } from './roles/scheduler-role';
import { startWorkerRole, type WorkerRole } from './roles/worker-role';

/**
 * Connections one engine node opens at most (docs/operations.md counts them): its pool, its
 * pg-boss pool, one direct connection for retention and one LISTEN connection (worker role).
 */
export const ENGINE_POOL_MAX = 30;
export const QUEUE_POOL_MAX = 10;
/** connections of the main pool opened at start and kept open (see warmPool in @belfry/db) */
const POOL_WARM = 12;

export interface RunningEngine {
  nodeId: string;
  metricsPort: number | null;
  stop(): Promise<void>;
}

export async function startEngine(env: EngineEnv, log: Log): Promise<RunningEngine> {
  const target = await resolveDatabase(env.db, (m) => log.info(m));
  // A node run on its own that started (or adopted) the embedded server keeps it running, as
  // `npm start` does; release() ends the watch. Nothing for a shared or external server.
  target.embedded?.keepRunning({ log: (m) => log.warn(m) });
  try {
    return await startOn(target, env, log);
  } catch (err) {
    // An embedded server this node started must not outlive a failed start.
    await target.release().catch(() => {});
    throw err;
  }
}

async function startOn(target: DatabaseTarget, env: EngineEnv, log: Log): Promise<RunningEngine> {
  await requireDirectConnection(target);
  // Hot statements are prepared under a name only where DATABASE_URL reaches PostgreSQL itself
  // (@belfry/db prepared.ts), never through a transaction pooler.
  const reachesServer = await reachesServerDirectly(target);
  // Migrations hold a session advisory lock: straight to PostgreSQL, never through a pooler.
  await migrate(target.directUrl, { partitions: env.db.BELFRY_PARTITIONS });
  // A stopped (SIGSTOP) node must not hold locks forever: the server aborts its idle
  // transaction, which rolls back whatever it had not committed. Set per transaction, so it
  // also holds through a transaction pooler.
  const pool = createPool(target.url, {
    max: ENGINE_POOL_MAX,
    // POOL_WARM of them opened at start (warmPool) and kept through quiet hours, so the top of
    // the hour does not open them; the rest on demand, closed again after 30 s idle.
    min: POOL_WARM,
    name: `belfry-engine:${env.nodeId}`,
    onError: (err) => log.debug({ err }, 'idle database connection lost'),
    transactionSettings: {
      idle_in_transaction_session_timeout: Math.min(10_000, env.partitionLeaseMs),
      lock_timeout: 10_000,
    },
    preparedStatements: reachesServer,
  });
  // Retention's pass runs under a session advisory lock (one node at a time).
  const direct = createPool(target.directUrl, {
    max: 1,
    name: `belfry-engine-direct:${env.nodeId}`,
    onError: (err) => log.debug({ err }, 'idle database connection lost'),
  });
  const queueFailures = new FailureStreak(log, 'queue', 'warn', { quietMs: 60_000 });
  const boss = await createQueueClient(target.url, {
    supervise: env.roles.includes('worker'),
    max: QUEUE_POOL_MAX,
    // pg-boss's own loops report each failure and never a success: a streak ends after a quiet minute
    onError: (err) => queueFailures.failed(err),
  });
  const warmed = await warmPool(pool, POOL_WARM);
  if (warmed < POOL_WARM)
    log.warn({ warmed, wanted: POOL_WARM }, 'could not open all the connections it opens at start');
  const metrics = new Metrics();
  metrics.setQueueDepthSource(async () =>
    Object.fromEntries((await queueDepth(pool)).map((d) => [d.priority, d.total])),
  );
  const served = env.metricsPort >= 0 ? await metrics.serve(env.metricsPort) : null;
  const clock = new DbClock(pool);
  await clock.start();

  const registry = new NodeRegistry(pool, { nodeId: env.nodeId, roles: env.roles }, log);
  await registry.start();

  const ctx: RoleContext = { env, log, target, pool, boss, metrics, clock };
  const stops: (() => Promise<void>)[] = [];
  let scheduling: SchedulerRole | undefined;
  let working: WorkerRole | undefined;
  if (env.roles.includes('scheduler')) {
    scheduling = await startSchedulerRole(ctx);
    stops.push(scheduling.stop);
  }
  if (env.roles.includes('worker')) {
    // before the first claim: the first runs must not wait for the HTTP client's cold code
    await warmHttpClient().catch((err) => log.warn({ err }, 'could not warm the HTTP client'));
    working = await startWorkerRole(ctx);
    stops.push(working.stop);
  }
  stops.unshift(startAlerts(ctx));
  const leases = scheduling?.leases;
  const workers = working?.workers;
  const docker = working?.docker;

  const retention = new Retention(direct, { intervalMs: 15 * 60_000, daysAhead: 7, deleteBatch: 5_000 }, log);
  await retention.start();

  registry.setStatsSource(() => ({
    partitions: leases?.partitions().length ?? 0,
    takeovers: leases?.takeovers ?? 0,
    inFlight: workers?.inFlight ?? 0,
    startLagMs: metrics.lagSummary(),
    clockOffsetMs: Math.round(clock.offset),
    metricsPort: served?.port ?? null,
    lanes: env.roles.includes('worker') ? ['push', ...(docker ? ['container'] : [])] : [],
    containers: docker
      ? {
          available: docker.available,
          engineId: docker.engineId,
          slots: env.containerSlots,
          ...(docker.available ? {} : { error: docker.error }),
        }
      : null,
  }));
  log.info(
    { roles: env.roles, embedded: Boolean(target.embedded), metricsPort: served?.port ?? null },
    'engine node started',
  );

  return {
    nodeId: env.nodeId,
    metricsPort: served?.port ?? null,
    async stop() {
      // Workers first finish or release what they run; the scheduler hands its partitions back.
      for (const stop of stops.reverse()) await stop().catch((err) => log.error({ err }, 'stop failed'));
      await retention.stop();
      await registry.stop();
      clock.stop();
      served?.server.close();
      await boss.stop({ graceful: false, close: true }).catch(() => {});
      await pool.end();
      await direct.end();
      await target.release();
      log.info('engine node stopped');
    },
  };
}
