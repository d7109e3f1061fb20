// What the database-outage tests share: the web API's health check built exactly as the web
// process builds its dependencies (pool, Prisma's adapter, pg-boss) on a URL of the test's
// choosing; a load of every-second jobs delivering to a loopback sink; and the checks that
// every due occurrence was delivered exactly once.
import { Keyring } from '@belfry/core';
import { createPool, createPrisma, createQueueClient } from '@belfry/db';
import { createRestHandler, type Logger, type ServiceDeps } from '@belfry/api';
import type pg from 'pg';
import { insertJob, insertTenant, type Sink } from './fixtures';

const silent: Logger = { info() {}, warn() {}, error() {} };

export interface HealthApi {
  /** GET /api/v1/healthz: its status and how long it took to answer */
  health(): Promise<{ status: number; ms: number }>;
  close(): Promise<void>;
}

export async function startHealthApi(url: string, partitions: number): Promise<HealthApi> {
  const pool = createPool(url, { max: 4, name: 'belfry-test-web' });
  const prisma = createPrisma(url, { max: 2 });
  const queue = await createQueueClient(url, { max: 2 });
  const deps: ServiceDeps = {
    prisma,
    pool,
    queue,
    clock: { now: () => new Date() },
    log: silent,
    keyring: Keyring.from('outage-test-key-material'),
    partitions,
  };
  const handle = createRestHandler(async () => deps, { log: silent });
  return {
    async health() {
      const started = Date.now();
      const res = await handle(new Request('http://localhost/api/v1/healthz'));
      return { status: res.status, ms: Date.now() - started };
    },
    async close() {
      await queue.stop({ graceful: false, close: true }).catch(() => {});
      await prisma.$disconnect().catch(() => {});
      await pool.end().catch(() => {});
    },
  };
}

/** Polls the health check until it answers `status`; returns the answers seen on the way. */
export async function healthUntil(
  api: HealthApi,
  status: number,
  timeoutMs = 60_000,
): Promise<{ status: number; ms: number }[]> {
  const seen: { status: number; ms: number }[] = [];
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const answer = await api.health();
    seen.push(answer);
    if (answer.status === status) return seen;
    if (Date.now() > deadline) throw new Error(`healthz never answered ${status}: ${JSON.stringify(seen.slice(-5))}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

export interface Load {
  jobs: { id: string; index: number }[];
  /** the first occurrence of every job */
  firstAt: number;
  everyMs: number;
}

/** `count` jobs firing every second from the next whole second on, each to its own sink path. */
export async function startLoad(pool: pg.Pool, partitions: number, sink: Sink, count: number): Promise<Load> {
  const tenant = await insertTenant(pool, { maxConcurrency: 1000 });
  const anchor = new Date(Math.ceil(Date.now() / 1000) * 1000 + 1000);
  const jobs: Load['jobs'] = [];
  for (let index = 0; index < count; index++) {
    const job = await insertJob(pool, tenant.id, {
      schedule: { type: 'interval', everySeconds: 1, anchor },
      nextRunAt: anchor,
      url: `${sink.url}/${index}`,
      partitions,
      timeoutSeconds: 5,
      retry: { maxAttempts: 20, initialDelaySeconds: 1, maxDelaySeconds: 2 },
    });
    jobs.push({ id: job.id, index });
  }
  return { jobs, firstAt: anchor.getTime(), everyMs: 1000 };
}

/** Stops the load's schedules (so the next test starts quiet). */
export async function stopLoad(pool: pg.Pool, load: Load): Promise<void> {
  await pool.query('UPDATE jobs SET next_run_at = NULL WHERE id = ANY($1::text[])', [load.jobs.map((j) => j.id)]);
}

export interface Tally {
  /** occurrences due up to the cut-off */
  expected: number;
  /** of those, how many reached the sink at least once */
  delivered: number;
  missed: number;
  /** occurrences (any time) the sink received more than once */
  twice: { job: string; scheduledTime: string; count: number; runIds: string[] }[];
}

/** Counts, per job and scheduled time, what the sink received for occurrences up to `cutoff`. */
export function tally(sink: Sink, load: Load, cutoff: number): Tally {
  const seen = new Map<string, { count: number; runIds: string[] }>();
  for (const d of sink.deliveries) {
    const key = `${d.headers['belfry-job-id']}@${d.headers['belfry-scheduled-time']}`;
    const entry = seen.get(key) ?? { count: 0, runIds: [] };
    entry.count++;
    entry.runIds.push(String(d.headers['webhook-id']));
    seen.set(key, entry);
  }
  let expected = 0;
  let delivered = 0;
  for (const job of load.jobs) {
    for (let at = load.firstAt; at <= cutoff; at += load.everyMs) {
      expected++;
      if (seen.has(`${job.id}@${new Date(at).toISOString()}`)) delivered++;
    }
  }
  const twice = [...seen]
    .filter(([, v]) => v.count > 1)
    .map(([k, v]) => {
      const [job = '', scheduledTime = ''] = k.split('@');
      return { job, scheduledTime, count: v.count, runIds: v.runIds };
    });
  return { expected, delivered, missed: expected - delivered, twice };
}
