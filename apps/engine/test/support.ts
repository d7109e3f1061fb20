// Helpers shared by the engine's integration tests: one engine node delivering to a webhook
// sink for a describe block, bulk job insertion (thousands of jobs in one statement), a lease
// keeper stand-in whose partitions the test controls, and readers for what the scheduler queued.
import { newId, type OverlapPolicy, partitionOf, type QueueRoute } from '@belfry/core';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import {
  type ClaimedRun,
  createQueueClient,
  enqueueRuns,
  type InsertedRun,
  insertScheduledRuns,
  pgExecutor,
  type QueueClient,
  type QueuedMessage,
  queuedMessages,
  withTransaction,
} from '@belfry/db';
import { createTestDatabase, type TestDatabase } from '../../../test/db';
import { type EngineNode, startEngineNode } from '../../../test/engine-nodes';
import { type Sink, startSink, TEST_ENCRYPTION_KEY_MATERIAL } from '../../../test/fixtures';
import type { OwnedPartition } from '../src/cluster/lease-keeper';
import type { Execution } from '../src/worker/execute';

export interface EngineWithSink {
  db: TestDatabase;
  sink: Sink;
  node: EngineNode;
}

/**
 * For the describe block it is called in: a database of its own, a webhook sink and one engine
 * node (scheduler and worker, with the test encryption key and `env`), stopped after the block.
 * The fields are set once its beforeAll has run.
 */
export function engineWithSink(nodeId: string, env: Record<string, string> = {}): EngineWithSink {
  const engine = {} as EngineWithSink;
  beforeAll(async () => {
    engine.db = await createTestDatabase();
    engine.sink = await startSink();
    engine.node = await startEngineNode({
      databaseUrl: engine.db.url,
      nodeId,
      env: { BELFRY_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY_MATERIAL, ...env },
    });
  });
  afterAll(async () => {
    await engine.node?.stop();
    await engine.sink?.close();
    await engine.db?.destroy();
  });
  return engine;
}

export interface BulkJobs {
  tenantId: string;
  url: string;
  partitions: number;
  /** one next_run_at per job (its next occurrence); also the one-off's runAt */
  nextRunAt: Date[];
  schedule: { type: 'once' } | { type: 'interval'; everySeconds: number; anchor: Date };
  timeoutSeconds?: number;
  retry?: { maxAttempts: number; initialDelaySeconds: number; maxDelaySeconds: number };
  overlapPolicy?: OverlapPolicy;
}

/** Inserts jobs with their next occurrence in one statement; answers the job ids in order. */
export async function insertJobsBulk(pool: pg.Pool, o: BulkJobs): Promise<string[]> {
  const ids = o.nextRunAt.map(() => newId('job'));
  const retry = o.retry ?? { maxAttempts: 3, initialDelaySeconds: 0, maxDelaySeconds: 1 };
  await pool.query(
    `WITH u AS (
       SELECT * FROM unnest($1::text[], $2::int[], $3::timestamptz[]) AS u(id, partition, next)
     )
     INSERT INTO jobs (id, tenant_id, name, schedule_type, run_at, every_seconds, anchor_at, target, payload,
                         retry_max_attempts, retry_initial_delay_seconds, retry_max_delay_seconds, timeout_seconds,
                         overlap_policy, partition, next_run_at)
       SELECT u.id, $4, u.id, $5::job_schedule_type, CASE WHEN $5::job_schedule_type = 'once' THEN u.next END, $6, coalesce($13, u.next), $7, '{"bulk":true}',
              $8, $9, $10, $11, $12, u.partition, u.next
     FROM u`,
    [
      ids,
      ids.map((id) => partitionOf(id, o.partitions)),
      o.nextRunAt,
      o.tenantId,
      o.schedule.type,
      o.schedule.type === 'interval' ? o.schedule.everySeconds : null,
      JSON.stringify({ type: 'http', url: o.url, method: 'POST', headers: {} }),
      retry.maxAttempts,
      retry.initialDelaySeconds,
      retry.maxDelaySeconds,
      o.timeoutSeconds ?? 5,
      o.overlapPolicy ?? 'allow',
      o.schedule.type === 'interval' ? o.schedule.anchor : null,
    ],
  );
  return ids;
}

export interface FakeLeases {
  partitions(): OwnedPartition[];
  forget(partitions: number[]): void;
  /** every partition passed to forget() */
  forgotten: number[];
}

/**
 * Writes lease rows for `partitions` (owner = nodeId, the given epoch, valid for an hour) and
 * answers a stand-in for the lease keeper that believes it holds them at `believedEpoch`.
 */
export async function holdPartitions(
  pool: pg.Pool,
  nodeId: string,
  partitions: number[],
  epoch = 7,
  believedEpoch = epoch,
): Promise<FakeLeases> {
  await pool.query(
    `UPDATE partition_leases SET owner = $1, epoch = $2, expires_at = now() + interval '1 hour' WHERE partition = ANY($3::int[])`,
    [nodeId, epoch, partitions],
  );
  const forgotten: number[] = [];
  return {
    forgotten,
    partitions: () =>
      partitions
        .filter((p) => !forgotten.includes(p))
        .map((partition) => ({ partition, epoch: String(believedEpoch) })),
    forget: (ps) => forgotten.push(...ps),
  };
}

export const range = (n: number) => Array.from({ length: n }, (_, i) => i);

export async function dbNow(pool: pg.Pool): Promise<Date> {
  const { rows } = await pool.query<{ now: Date }>('SELECT now() AS now');
  return rows[0]!.now;
}

/** The run messages on the run queues (optionally for the runs of one job). */
export function queueMessages(pool: pg.Pool, jobId?: string): Promise<QueuedMessage[]> {
  return queuedMessages(pool, jobId === undefined ? {} : { jobId });
}

/**
 * Counts the requests a sink has open (headers received, response not yet finished) per key
 * (e.g. per tenant or per job), and the most ever open at once.
 */
export function trackOpenRequests(server: Server, keyOf: (req: IncomingMessage) => string | null) {
  const open = new Map<string, number>();
  const max = new Map<string, number>();
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const key = keyOf(req);
    if (key === null) return;
    const now = (open.get(key) ?? 0) + 1;
    open.set(key, now);
    max.set(key, Math.max(max.get(key) ?? 0, now));
    res.on('close', () => open.set(key, (open.get(key) ?? 1) - 1));
  });
  return { open, max };
}

export interface QueuedRuns {
  tenantId: string;
  jobId: string;
  /** one run per scheduled time */
  times: Date[];
  /** default: the tenant's push queue, normal priority */
  route?: QueueRoute;
  /** the job's overlap policy is skip (scheduled runs are then checked on claim) */
  overlapSkip?: boolean;
  /** claimable this long before the scheduled time, as the scheduler queues runs (default 0) */
  claimAheadMs?: number;
}

/** Pending scheduled runs and their queue messages, written as the scheduler writes them. */
export async function queueRuns(pool: pg.Pool, boss: QueueClient, o: QueuedRuns): Promise<InsertedRun[]> {
  const route = o.route ?? { lane: 'push', tenantId: o.tenantId, priority: 'normal' };
  return withTransaction(pool, async (client) => {
    const runs = await insertScheduledRuns(
      client,
      o.times.map((scheduledTime) => ({
        id: newId('run', scheduledTime),
        tenantId: o.tenantId,
        jobId: o.jobId,
        scheduledTime,
        status: 'pending' as const,
        skipReason: null,
        priority: route.lane === 'pull' ? 'normal' : route.priority,
      })),
    );
    await enqueueRuns(
      boss,
      pgExecutor(client),
      runs.map((r) => ({
        runId: r.id,
        route,
        scheduledTime: r.scheduled_time,
        startAfter: new Date(r.scheduled_time.getTime() - (o.claimAheadMs ?? 0)),
        overlapSkip: o.overlapSkip,
      })),
    );
    return runs;
  });
}

/** An attempt in flight as the worker pool holds it, for testing the pool's parts on their own. */
export function executionOf(run: ClaimedRun, extra: Partial<Execution> = {}): Execution {
  return {
    run,
    lane: 'push',
    abort: new AbortController(),
    reason: null,
    finished: false,
    done: Promise.resolve(),
    ...extra,
  };
}

export interface QueueTestDatabase extends TestDatabase {
  boss: QueueClient;
}

/** A test database with a pg-boss client on it; destroy() closes both. */
export async function createQueueTestDatabase(max = 2): Promise<QueueTestDatabase> {
  const db = await createTestDatabase();
  const boss = await createQueueClient(db.url, { max });
  return {
    ...db,
    boss,
    async destroy() {
      await boss.stop({ graceful: false, close: true });
      await db.destroy();
    },
  };
}
