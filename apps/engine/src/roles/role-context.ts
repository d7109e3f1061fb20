// What every role of an engine node is started with (engine.ts builds it once per node).
import type { DatabaseTarget, QueueClient } from '@belfry/db';
import type pg from 'pg';
import type { DbClock } from '../db-clock';
import type { EngineEnv } from '../env';
import type { Log } from '../logger';
import type { Metrics } from '../metrics';

export interface RoleContext {
  env: EngineEnv;
  log: Log;
  target: DatabaseTarget;
  pool: pg.Pool;
  boss: QueueClient;
  metrics: Metrics;
  clock: DbClock;
}
