// What a worker pool is built from: the lanes it serves with their slot limits, its timings,
// and the services it uses.
import type { WorkerLane } from '@belfry/core';
import type { QueueClient } from '@belfry/db';
import type { HandlerRegistry } from '@belfry/handlers';
import type pg from 'pg';
import type { DbClock } from '../db-clock';
import type { Log } from '../logger';
import type { Metrics } from '../metrics';
import type { SigningSecrets } from './secrets';
import type { TenantLimits } from './tenant-limits';
import type { Wakeups } from './wakeups';

/** Fetch-and-claim transactions in flight at once on one node. */
export const MAX_CLAIMS = 8;

/**
 * Queues one fetch-and-claim transaction takes from at most (claim.ts). Their takes are one
 * statement a round (takeFromQueues), so a queue more in a claim costs little: with the engine's default
 * 1,000 slots, 20 spent 8 % less CPU per run of a 100K herd over 20 tenants than 8 did.
 */
export const QUEUES_PER_CLAIM = 20;

export interface LaneConfig {
  lane: WorkerLane;
  /** how many of this lane's runs may be in flight on this node now (e.g. 0 while its engine is away) */
  slots: () => number;
}

export interface WorkerConfig {
  workerId: string;
  lanes: LaneConfig[];
  batchSize: number;
  runLeaseMs: number;
  heartbeatMs: number;
  shutdownGraceMs: number;
}

export interface WorkerPoolOptions {
  pool: pg.Pool;
  boss: QueueClient;
  handlers: HandlerRegistry;
  secrets: SigningSecrets;
  limits: Pick<TenantLimits, 'perNode'>;
  wakeups: Wakeups;
  clock: DbClock;
  config: WorkerConfig;
  log: Log;
  metrics?: Metrics;
}
