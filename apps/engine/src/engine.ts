// Composition root of an engine node: builds the loops its roles need and owns their order
// of start and stop.
import { createPool, migrate, resolveDatabase } from '@belfry/db';
import type { EngineEnv } from './env';
import type { Log } from './logger';
import { NodeRegistry } from './cluster/node-registry';

export interface RunningEngine {
  nodeId: string;
  stop(): Promise<void>;
}

export async function startEngine(env: EngineEnv, log: Log): Promise<RunningEngine> {
  const target = await resolveDatabase(env.db, (m) => log.info(m));
  await migrate(target.url, { partitions: env.db.BELFRY_PARTITIONS });
  const pool = createPool(target.url, { max: 20, name: `belfry-engine:${env.nodeId}` });

  const registry = new NodeRegistry(pool, { nodeId: env.nodeId, roles: env.roles }, log);
  await registry.start();
  log.info({ roles: env.roles, embedded: Boolean(target.embedded) }, 'engine node started');

  return {
    nodeId: env.nodeId,
    async stop() {
      await registry.stop();
      await pool.end();
      await target.release();
      log.info('engine node stopped');
    },
  };
}
