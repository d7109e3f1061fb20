// pg-boss alone: what a user who builds scheduled webhooks on pg-boss writes. `insert` with
// `startAfter` (pg-boss's bulk `send`), a `work()` handler that POSTs each job of its batch
// to the sink and settles each job on its own (perJobResults), two worker processes.
import { PgBoss, type JobResult } from 'pg-boss';
import { createDatabase } from '../lib/database';
import type { PeerData, PeerDriver } from './types';
import { backendPids, durability, vacuumAnalyze } from './pg-store';
import { installedVersion } from './version';

export type PgBossSettings = {
  /** jobs per fetch; the handler delivers them concurrently */
  batchSize: number;
  /** polling loops per process, each with its own batch in flight */
  localConcurrency: number;
  /** the idle poll (pg-boss's minimum is 0.5 s); deferred jobs are found by polling only */
  pollingIntervalSeconds: number;
  /** fetch again at once while fetches come back full */
  burstWhenBatchFull: boolean;
  /** connections per worker process */
  poolSize: number;
  /** sockets to the sink per worker process */
  sinkConnections: number;
};

const QUEUE = 'webhooks';
const version = installedVersion('pg-boss');

export const pgBossPeer: PeerDriver<PgBossSettings> = {
  name: 'pgboss',
  title: `pg-boss ${version}`,
  defaults: {
    batchSize: 100,
    localConcurrency: 4,
    pollingIntervalSeconds: 0.5,
    burstWhenBatchFull: true,
    poolSize: 10,
    sinkConnections: 64,
  },

  async open() {
    const db = await createDatabase('belfry_peer_pgboss');
    const boss = new PgBoss({ connectionString: db.url, max: 4, supervise: false, schedule: false });
    boss.on('error', (err) => process.stderr.write(`[peer-pgboss producer] ${String(err)}\n`));
    try {
      await boss.start();
      // Belfry's bench jobs: 3 attempts, a run lease of 30 s.
      await boss.createQueue(QUEUE, { retryLimit: 2, expireInSeconds: 30 });
    } catch (err) {
      await boss.stop({ graceful: false }).catch(() => {});
      await db.drop();
      throw err;
    }
    return {
      address: { url: db.url, queue: QUEUE },
      async enqueue(jobs) {
        await boss.insert(
          QUEUE,
          jobs.map((j) => ({
            data: { jobId: j.jobId, scheduledTime: j.runAt.toISOString() } satisfies PeerData,
            startAfter: j.runAt,
          })),
        );
      },
      settle: () => vacuumAnalyze(db.url),
      serverPids: () => backendPids(db.url),
      serverInfo: () => durability(db.url),
      async close() {
        await boss.stop({ graceful: false }).catch(() => {});
        await db.drop();
      },
    };
  },

  async work(address, s, deliver) {
    // Maintenance (supervise) on, as in production; cron off: nothing here uses it.
    const boss = new PgBoss({ connectionString: address.url, max: s.poolSize, schedule: false });
    boss.on('error', (err) => process.stderr.write(`[peer-pgboss] ${String(err)}\n`));
    await boss.start();
    await boss.work<PeerData>(
      address.queue,
      {
        batchSize: s.batchSize,
        localConcurrency: s.localConcurrency,
        pollingIntervalSeconds: s.pollingIntervalSeconds,
        burstWhenBatchFull: s.burstWhenBatchFull,
        perJobResults: true,
      },
      (jobs) =>
        Promise.all(
          jobs.map(async (job): Promise<JobResult> => {
            try {
              await deliver({
                runId: job.id,
                jobId: job.data.jobId,
                scheduledTime: job.data.scheduledTime,
                attempt: job.retryCount + 1,
              });
              return { id: job.id, status: 'completed' };
            } catch (err) {
              return { id: job.id, status: 'failed', output: { message: (err as Error).message } };
            }
          }),
        ),
    );
    return { stop: () => boss.stop({ graceful: true, timeout: 10_000 }) };
  },
};
