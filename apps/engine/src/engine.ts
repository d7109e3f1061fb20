// Composition root of an engine node: builds the loops its roles need and owns the order in
// which they start and stop. Scheduler role: lease keeper + scheduler. Worker role: wake-ups,
// worker pool, reaper. Every node: registry heartbeat, retention (one node at a time), metrics.
import { Keyring, type WorkerLane } from '@belfry/core';
import {
  createPool,
  createQueueClient,
  countNotificationOutcomes,
  type DatabaseTarget,
  localSecret,
  migrate,
  queueDepth,
  requireDirectConnection,
  resolveDatabase,
} from '@belfry/db';
import {
  AlertDispatcher,
  ChannelSenders,
  DEFAULT_DISPATCHER_CONFIG,
  dashboardLinks,
  LateWatchdog,
} from '@belfry/alerts';
import { LeaseKeeper } from './cluster/lease-keeper';
import { NodeRegistry } from './cluster/node-registry';
import { DbClock } from './db-clock';
import type { EngineEnv } from './env';
import { connectDocker, createHandlerRegistry, defaultHandlers, type HandlerOptions } from '@belfry/handlers';
import { ContainerSweeper, DEPLOYMENT_LABEL } from './containers/container-sweeper';
import { DockerEngine } from './containers/docker-engine';
import { deploymentId } from './containers/deployment';
import type { Log } from './logger';
import { Reaper } from './maintenance/reaper';
import { Retention } from './maintenance/retention';
import { Metrics } from './metrics';
import { DEFAULT_SCHEDULER_CONFIG, Scheduler } from './scheduler/scheduler';
import { SigningSecrets } from './worker/secrets';
import { TenantLimits } from './worker/tenant-limits';
import { Wakeups } from './worker/wakeups';
import { WorkerPool } from './worker/worker-pool';

/**
 * Connections one engine node opens at most (docs/operations.md counts them): its pool, its
 * pg-boss pool, one direct connection for retention and one LISTEN connection (worker role).
 */
export const ENGINE_POOL_MAX = 30;
export const QUEUE_POOL_MAX = 10;

export interface RunningEngine {
  nodeId: string;
  metricsPort: number | null;
  stop(): Promise<void>;
}

function alertDispatcherConfig(env: EngineEnv) {
  return {
    claim: { ...DEFAULT_DISPATCHER_CONFIG.claim, quietSeconds: env.alerts.digestSeconds },
    retry: { ...DEFAULT_DISPATCHER_CONFIG.retry, initialDelaySeconds: env.alerts.retrySeconds },
  };
}

export async function startEngine(env: EngineEnv, log: Log): Promise<RunningEngine> {
  const target = await resolveDatabase(env.db, (m) => log.info(m));
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
  // Migrations hold a session advisory lock: straight to PostgreSQL, never through a pooler.
  await migrate(target.directUrl, { partitions: env.db.BELFRY_PARTITIONS });
  // A stopped (SIGSTOP) node must not hold locks forever: the server aborts its idle
  // transaction, which rolls back whatever it had not committed. Set per transaction, so it
  // also holds through a transaction pooler.
  const pool = createPool(target.url, {
    max: ENGINE_POOL_MAX,
    name: `belfry-engine:${env.nodeId}`,
    onError: (err) => log.debug({ err }, 'idle database connection lost'),
    transactionSettings: {
      idle_in_transaction_session_timeout: Math.min(10_000, env.partitionLeaseMs),
      lock_timeout: 10_000,
    },
  });
  // Retention's pass runs under a session advisory lock (one node at a time).
  const direct = createPool(target.directUrl, {
    max: 1,
    name: `belfry-engine-direct:${env.nodeId}`,
    onError: (err) => log.debug({ err }, 'idle database connection lost'),
  });
  const boss = await createQueueClient(target.url, {
    supervise: env.roles.includes('worker'),
    max: QUEUE_POOL_MAX,
    onError: (err) => log.warn({ err }, 'queue error'),
  });
  const metrics = new Metrics();
  metrics.setQueueDepthSource(async () =>
    Object.fromEntries((await queueDepth(pool)).map((d) => [d.priority, d.total])),
  );
  const served = env.metricsPort >= 0 ? await metrics.serve(env.metricsPort) : null;
  const clock = new DbClock(pool);
  await clock.start();

  const registry = new NodeRegistry(pool, { nodeId: env.nodeId, roles: env.roles }, log);
  await registry.start();

  const stops: (() => Promise<void>)[] = [];
  let leases: LeaseKeeper | undefined;
  let workers: WorkerPool | undefined;

  if (env.roles.includes('scheduler')) {
    leases = new LeaseKeeper(pool, { nodeId: env.nodeId, leaseMs: env.partitionLeaseMs }, log);
    const scheduler = new Scheduler(
      pool,
      boss,
      leases,
      {
        ...DEFAULT_SCHEDULER_CONFIG,
        nodeId: env.nodeId,
        plan: { ...DEFAULT_SCHEDULER_CONFIG.plan, misfireGraceMs: env.misfireGraceMs },
      },
      log,
      metrics,
    );
    const keeper = leases;
    keeper.on('acquired', () => metrics.partitionsOwned.set(keeper.partitions().length));
    keeper.on('lost', () => metrics.partitionsOwned.set(keeper.partitions().length));
    keeper.on('released', () => metrics.partitionsOwned.set(keeper.partitions().length));
    let reported = 0;
    keeper.on('acquired', () => {
      metrics.leaseTakeovers.inc(keeper.takeovers - reported);
      reported = keeper.takeovers;
    });
    await keeper.start();
    scheduler.start();
    stops.push(async () => {
      await scheduler.stop();
      await keeper.stop();
    });
  }

  let docker: DockerEngine | undefined;
  let sweeper: ContainerSweeper | undefined;
  if (env.roles.includes('worker')) {
    // The lanes this node's workers serve: push (HTTP and broker publishes) always; the
    // container lane where the operator allows images (BELFRY_CONTAINER_IMAGES), with slots of
    // its own — zero while the Docker Engine does not answer.
    const lanes: WorkerLane[] = ['push'];
    const handlerOptions: HandlerOptions = { allowPrivateTargets: env.allowPrivateTargets };
    let deployment: string | undefined;
    if (!env.containerImages.empty) {
      lanes.push('container');
      docker = new DockerEngine(connectDocker(env.dockerHost), log.child({ component: 'docker' }));
      await docker.start();
      deployment = await deploymentId(pool);
      handlerOptions.container = {
        docker: docker.docker,
        images: env.containerImages,
        labels: { [DEPLOYMENT_LABEL]: deployment },
      };
    }
    const handlers = createHandlerRegistry(defaultHandlers({ ...handlerOptions, lanes }));
    const keyring = Keyring.from(localSecret('encryption-key', env.encryptionKeyMaterial), env.decryptionKeyMaterials);
    // LISTEN needs a session of its own: the direct URL.
    const wakeups = new Wakeups(pool, clock, { url: target.directUrl, discoveryMs: 2_000, lanes }, log);
    const limits = new TenantLimits(pool, env.tenantConcurrency);
    await limits.refresh();
    workers = new WorkerPool({
      pool,
      boss,
      handlers,
      secrets: new SigningSecrets(pool, keyring),
      limits,
      wakeups,
      clock,
      config: {
        workerId: env.nodeId,
        lanes: lanes.map((lane) => ({
          lane,
          slots:
            lane === 'container' ? () => (docker?.available ? env.containerSlots : 0) : () => env.workerConcurrency,
        })),
        batchSize: 50,
        runLeaseMs: env.runLeaseMs,
        heartbeatMs: Math.max(500, Math.floor(env.runLeaseMs / 3)),
        shutdownGraceMs: env.shutdownGraceMs,
      },
      log,
      metrics,
    });
    const pool_ = workers;
    if (docker && deployment) {
      sweeper = new ContainerSweeper(
        pool,
        docker,
        (run) => pool_.adopt(run),
        {
          workerId: env.nodeId,
          deploymentId: deployment,
          runLeaseMs: env.runLeaseMs,
          intervalMs: 2_000,
          killGraceSeconds: 10,
        },
        log.child({ component: 'container-sweeper' }),
      );
      // Slots come back with the engine: look for queued container runs at once.
      docker.on('change', () => pool_.pump());
    }
    const reaper = new Reaper(
      pool,
      boss,
      {
        intervalMs: Math.min(2_000, Math.floor(env.runLeaseMs / 2)),
        batchSize: 500,
        recoveryGraceMs: env.runLeaseMs,
        maxScanMs: Math.max(1_000, Math.floor(env.runLeaseMs / 3)),
      },
      log,
      metrics,
      sweeper,
    );
    workers.start();
    await wakeups.start();
    reaper.start();
    sweeper?.start();
    const sweeper_ = sweeper;
    const docker_ = docker;
    stops.push(async () => {
      await wakeups.stop();
      await sweeper_?.stop();
      await reaper.stop();
      await pool_.stop();
      docker_?.stop();
      await handlers.close();
    });
  }

  // Alerts: every node (whatever its roles) drains the notification outbox and watches for late
  // occurrences; the web process does too, so alerts still go out with every engine stopped.
  const alertSenders = new ChannelSenders({
    links: dashboardLinks(env.alerts.dashboardUrl),
    allowPrivateTargets: env.allowPrivateTargets,
    smtpUrl: env.alerts.smtpUrl,
    smtpFrom: env.alerts.smtpFrom,
  });
  const dispatcher = new AlertDispatcher({
    pool,
    keyring: Keyring.from(localSecret('encryption-key', env.encryptionKeyMaterial), env.decryptionKeyMaterials),
    sender: alertSenders,
    log,
    config: alertDispatcherConfig(env),
  });
  const watchdog = new LateWatchdog(pool, { intervalMs: env.alerts.lateCheckMs }, log);
  metrics.setNotificationSource(() => countNotificationOutcomes(pool));
  metrics.setIncidentSource(async () => {
    const { rows } = await pool.query<{ kind: string; n: number }>(
      `SELECT k AS kind, (SELECT count(*)::int FROM incidents WHERE kind = k AND resolved_at IS NULL) AS n
       FROM unnest(ARRAY['dead', 'failing', 'late']) AS k`,
    );
    return Object.fromEntries(rows.map((r) => [r.kind, r.n]));
  });
  dispatcher.start();
  watchdog.start();
  stops.unshift(async () => {
    await watchdog.stop();
    await dispatcher.stop();
    await alertSenders.close();
  });

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
