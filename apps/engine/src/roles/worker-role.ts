// The worker role of an engine node: wake-ups, the worker pool over its lanes (push always; the
// container lane where the operator allows images, with slots of its own — zero while the
// Docker Engine does not answer), the reaper and, with containers, the container sweeper.
import { Keyring, type WorkerLane } from '@belfry/core';
import { localSecret } from '@belfry/db';
import { connectDocker, createHandlerRegistry, defaultHandlers, type HandlerOptions } from '@belfry/handlers';
import { ContainerSweeper, DEPLOYMENT_LABEL } from '../containers/container-sweeper';
import { deploymentId } from '../containers/deployment';
import { DockerEngine } from '../containers/docker-engine';
import { Reaper } from '../maintenance/reaper';
import { SigningSecrets } from '../worker/secrets';
import { TenantLimits } from '../worker/tenant-limits';
import { Wakeups } from '../worker/wakeups';
import { WorkerPool } from '../worker/worker-pool';
import type { RoleContext } from './role-context';

export interface WorkerRole {
  workers: WorkerPool;
  /** the Docker Engine connection; undefined without BELFRY_CONTAINER_IMAGES */
  docker: DockerEngine | undefined;
  stop(): Promise<void>;
}

export async function startWorkerRole({
  env,
  log,
  target,
  pool,
  boss,
  metrics,
  clock,
}: RoleContext): Promise<WorkerRole> {
  let docker: DockerEngine | undefined;
  let sweeper: ContainerSweeper | undefined;
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
  const workers = new WorkerPool({
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
        slots: lane === 'container' ? () => (docker?.available ? env.containerSlots : 0) : () => env.workerConcurrency,
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
  return {
    workers,
    docker,
    async stop() {
      await wakeups.stop();
      await sweeper_?.stop();
      await reaper.stop();
      await pool_.stop();
      docker_?.stop();
      await handlers.close();
    },
  };
}
