// BullMQ on the machine's Redis: delayed jobs added with `addBulk`, a Worker whose processor
// POSTs to the sink, two worker processes. Keys live under a prefix of this run's own, deleted
// afterwards; a previous run's prefix left behind by a killed bench is swept when it is old.
import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import type { PeerData, PeerDriver } from './types';
import { installedVersion } from './version';

export type BullMqSettings = {
  /** Worker instances per process: each fetches its next job one Redis call at a time */
  workersPerProcess: number;
  /** jobs processed at once per Worker */
  concurrency: number;
  /** seconds a Worker blocks waiting for a job when the queue is empty */
  drainDelay: number;
  /** completed jobs kept in Redis (BullMQ keeps all unless told) */
  removeOnCompleteCount: number;
  /** sockets to the sink per worker process */
  sinkConnections: number;
};

const QUEUE = 'webhooks';
const PREFIX_ROOT = 'belfry-bench-peer';
const STALE_MS = 6 * 3600_000;
const version = installedVersion('bullmq');

function connection(url: string) {
  const u = new URL(url);
  return { host: u.hostname, port: Number(u.port || 6379) };
}

/** Deletes every key under `match` (SCAN, never KEYS: the Redis is shared). */
async function deleteKeys(redis: Redis, match: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', match, 'COUNT', 1000);
    cursor = next;
    if (keys.length) await redis.unlink(...keys);
  } while (cursor !== '0');
}

/** Prefixes of earlier runs (their creation time in base 36) that are hours old. */
async function sweepStale(redis: Redis): Promise<void> {
  const stale = new Set<string>();
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${PREFIX_ROOT}:*`, 'COUNT', 1000);
    cursor = next;
    for (const k of keys) {
      const tag = k.split(':')[1] ?? '';
      const created = Number.parseInt(tag.split('-')[0] ?? '', 36);
      if (Number.isFinite(created) && Date.now() - created > STALE_MS) stale.add(tag);
    }
  } while (cursor !== '0');
  for (const tag of stale) await deleteKeys(redis, `${PREFIX_ROOT}:${tag}:*`);
}

export const bullMqPeer: PeerDriver<BullMqSettings> = {
  name: 'bullmq',
  title: `BullMQ ${version}`,
  defaults: {
    workersPerProcess: 1,
    concurrency: 200,
    drainDelay: 5,
    removeOnCompleteCount: 1000,
    sinkConnections: 64,
  },

  async open() {
    const url = 'redis://127.0.0.1:6379';
    const tag = `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
    const prefix = `${PREFIX_ROOT}:${tag}`;
    const redis = new Redis({ ...connection(url), lazyConnect: true });
    await redis.connect();
    await sweepStale(redis);
    const queue = new Queue(QUEUE, { connection: connection(url), prefix });
    const cleanUp = async () => {
      await queue.close().catch(() => {});
      await deleteKeys(redis, `${prefix}:*`);
      redis.disconnect();
    };
    try {
      await queue.waitUntilReady();
    } catch (err) {
      await cleanUp();
      throw err;
    }
    return {
      address: { url, queue: QUEUE, prefix },
      async enqueue(jobs) {
        const now = Date.now();
        await queue.addBulk(
          jobs.map((j) => ({
            name: 'webhook',
            data: { jobId: j.jobId, scheduledTime: j.runAt.toISOString() } satisfies PeerData,
            // An explicit timestamp, so timestamp + delay is exactly the due time.
            opts: { timestamp: now, delay: Math.max(0, j.runAt.getTime() - now), attempts: 3 },
          })),
        );
      },
      async settle() {},
      async serverPids() {
        const info = await redis.info('server');
        const pid = Number(/process_id:(\d+)/.exec(info)?.[1]);
        return pid ? [pid] : [];
      },
      async serverInfo() {
        const info = await redis.info('server');
        const out: Record<string, string> = { redis_version: /redis_version:(\S+)/.exec(info)?.[1] ?? '?' };
        for (const name of ['appendonly', 'appendfsync', 'save', 'maxmemory-policy']) {
          const [, value] = (await redis.config('GET', name)) as string[];
          out[name] = value ?? '?';
        }
        return out;
      },
      close: cleanUp,
    };
  },

  async work(address, s, deliver) {
    const workers = Array.from({ length: s.workersPerProcess }, () => {
      const worker = new Worker<PeerData>(
        address.queue,
        async (job) => {
          await deliver({
            runId: job.id ?? '',
            jobId: job.data.jobId,
            scheduledTime: job.data.scheduledTime,
            attempt: job.attemptsStarted,
          });
        },
        {
          connection: connection(address.url),
          prefix: address.prefix,
          concurrency: s.concurrency,
          drainDelay: s.drainDelay,
          removeOnComplete: { count: s.removeOnCompleteCount },
          removeOnFail: { count: 10_000 },
        },
      );
      worker.on('error', (err) => process.stderr.write(`[peer-bullmq] ${String(err)}\n`));
      return worker;
    });
    await Promise.all(workers.map((w) => w.waitUntilReady()));
    return {
      async stop() {
        await Promise.all(workers.map((w) => w.close()));
      },
    };
  },
};
