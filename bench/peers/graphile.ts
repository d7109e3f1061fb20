// graphile-worker: `addJobs` with `runAt` from the producer, a `webhook` task that POSTs to the
// sink, two worker processes. Its batching options (local queue, batched completion) are the
// ones its performance guide recommends for high throughput.
import { Logger, makeWorkerUtils, run } from 'graphile-worker';
import { createDatabase } from '../lib/database';
import type { PeerData, PeerDriver } from './types';
import { backendPids, durability, vacuumAnalyze } from './pg-store';
import { installedVersion } from './version';

export type GraphileSettings = {
  /** jobs run at once per process */
  concurrentJobs: number;
  /** connections per process (its guide: 10 or concurrentJobs + 2; tasks here use none) */
  maxPoolSize: number;
  /** the poll for due jobs in ms: future jobs are found by polling, not by LISTEN */
  pollInterval: number;
  /** jobs locked and fetched per query into the process's local queue; 0 = off */
  localQueueSize: number;
  /** ms to gather completions into one query; -1 = complete each job on its own */
  completeJobBatchDelay: number;
  /** sockets to the sink per worker process */
  sinkConnections: number;
};

const TASK = 'webhook';
const version = installedVersion('graphile-worker');

// Warnings and errors only, to stderr: stdout carries the worker process's ready line. The
// warning that maxPoolSize is below concurrentJobs is left out: it is about tasks that use the
// pool, and these do not (README.md in bench/results).
const logger = new Logger(() => (level, message) => {
  if (level !== 'error' && level !== 'warning') return;
  if (message.includes('maxPoolSize')) return;
  process.stderr.write(`[peer-graphile] ${level}: ${message}\n`);
});

export const graphilePeer: PeerDriver<GraphileSettings> = {
  name: 'graphile',
  title: `graphile-worker ${version}`,
  defaults: {
    concurrentJobs: 200,
    maxPoolSize: 20,
    pollInterval: 100,
    localQueueSize: 500,
    completeJobBatchDelay: 0,
    sinkConnections: 64,
  },

  async open() {
    const db = await createDatabase('belfry_peer_graphile');
    let utils: Awaited<ReturnType<typeof makeWorkerUtils>> | undefined;
    try {
      utils = await makeWorkerUtils({ connectionString: db.url, logger });
      await utils.migrate();
    } catch (err) {
      await Promise.resolve(utils?.release()).catch(() => {});
      await db.drop();
      throw err;
    }
    const u = utils;
    return {
      address: { url: db.url, queue: TASK },
      async enqueue(jobs) {
        await u.addJobs(
          jobs.map((j) => ({
            identifier: TASK,
            payload: { jobId: j.jobId, scheduledTime: j.runAt.toISOString() } satisfies PeerData,
            runAt: j.runAt,
            maxAttempts: 3, // as Belfry's bench jobs
          })),
        );
      },
      settle: () => vacuumAnalyze(db.url),
      serverPids: () => backendPids(db.url),
      serverInfo: () => durability(db.url),
      async close() {
        await Promise.resolve(u.release()).catch(() => {});
        await db.drop();
      },
    };
  },

  async work(address, s, deliver) {
    const runner = await run({
      connectionString: address.url,
      noHandleSignals: true,
      logger,
      taskList: {
        [address.queue]: async (payload, helpers) => {
          const data = payload as PeerData;
          await deliver({
            runId: helpers.job.id,
            jobId: data.jobId,
            scheduledTime: data.scheduledTime,
            attempt: helpers.job.attempts,
          });
        },
      },
      preset: {
        worker: {
          concurrentJobs: s.concurrentJobs,
          maxPoolSize: s.maxPoolSize,
          pollInterval: s.pollInterval,
          ...(s.localQueueSize > 0 ? { localQueue: { size: s.localQueueSize } } : {}),
          completeJobBatchDelay: s.completeJobBatchDelay,
          failJobBatchDelay: s.completeJobBatchDelay,
        },
      },
    });
    return { stop: () => runner.stop() };
  },
};
