// Bulk creation through the API: `count` jobs sent as POST /api/v1/jobs/batch requests of
// `batch` jobs, `concurrency` requests in flight, to the REST API in its own process (as a web
// node serves it, minus Next's routing). Reports jobs created per second end to end (request
// out → 201 in), request latency, and checks every job landed (jobs, and those with a next occurrence).
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { createTenant } from '@belfry/api';
import { Keyring } from '@belfry/core';
import { createPrisma, createQueueClient, findRepoRoot } from '@belfry/db';
import { childEnv, cpuProfArgs } from '../lib/env';
import { benchDatabase, nodeBin } from '../lib/harness';
import { cpuMeter, processCpuMs } from '../lib/proc';
import { summarize, type Summary } from '../lib/stats';

export interface CreateResult {
  parameters: { jobs: number; batch: number; concurrency: number };
  created: number;
  elapsedMs: number;
  jobsPerSecond: number;
  requestMs: Summary;
  /** CPU per 1,000 jobs (from /proc): the API process, and the database's backends */
  cpuMsPer1000: { api: number | null; postgres: number | null };
  /** jobs, and jobs with a next occurrence (next_run_at), counted in the database afterwards */
  stored: { jobs: number; entries: number };
}

const root = findRepoRoot();

async function startApi(url: string): Promise<{ url: string; pid: number | undefined; stop(): Promise<void> }> {
  // BENCH_CPU_PROF=<dir> writes a V8 CPU profile of the API process there on exit.
  const prof = cpuProfArgs();
  const child = spawn(nodeBin, [...prof, '--import', 'tsx', join(root, 'bench/lib/api-process.ts')], {
    cwd: root,
    env: childEnv({ DATABASE_URL: url }),
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', (line) =>
      resolve((JSON.parse(line) as { port: number }).port),
    );
    child.once('exit', (code) => reject(new Error(`bench API exited with ${code}`)));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid,
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    },
  };
}

function jobBody(i: number, sink: string) {
  return {
    name: `bulk-${i}`,
    schedule: { type: 'cron', expression: `${i % 60} ${i % 24} * * *`, timezone: 'Europe/Berlin' },
    target: { type: 'http', url: sink, headers: { 'x-tenant': String(i % 100) } },
    payload: { customer: i, report: 'daily' },
  };
}

export async function runCreate(o: { count: number; batch: number; concurrency: number }): Promise<CreateResult> {
  const db = await benchDatabase();
  const prisma = createPrisma(db.url, { max: 2 });
  const queue = await createQueueClient(db.url, { max: 2 });
  let api: Awaited<ReturnType<typeof startApi>> | undefined;
  try {
    const tenant = await createTenant(
      {
        prisma,
        pool: db.pool,
        queue,
        clock: { now: () => new Date() },
        log: { info() {}, warn() {}, error() {} },
        keyring: Keyring.from('bench-encryption-key-material'),
        partitions: 1024,
      },
      { name: 'bulk' },
    );
    // The bench measures the endpoint, not the rate limit; and the warm-up batch plus the
    // measured ones exceed the default job quota (100,000) in a full run.
    await db.pool.query(
      'UPDATE tenants SET rate_limit_per_second = 1000000, rate_limit_burst = 1000000, max_jobs = $1',
      [o.count + 10 * o.batch],
    );
    api = await startApi(db.url);
    const headers = { authorization: `Bearer ${tenant.apiKey}`, 'content-type': 'application/json' };
    const bodies: string[] = [];
    for (let i = 0; i < o.count; i += o.batch) {
      const n = Math.min(o.batch, o.count - i);
      bodies.push(
        JSON.stringify({ jobs: Array.from({ length: n }, (_, k) => jobBody(i + k, 'https://example.com/hook')) }),
      );
    }
    // One warm-up request (connections, JIT), not counted.
    await fetch(`${api.url}/api/v1/jobs/batch`, { method: 'POST', headers, body: bodies[0] });
    const before = Number((await db.pool.query('SELECT count(*) AS n FROM jobs')).rows[0].n);

    const backends = async () =>
      (
        await db.pool.query<{ pid: number }>(
          'SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
        )
      ).rows.map((r) => r.pid);
    const apiCpu0 = processCpuMs(api.pid);
    const pgCpu = cpuMeter();
    pgCpu.start(await backends());
    const latencies: number[] = [];
    let next = 0;
    let created = 0;
    const t0 = performance.now();
    const worker = async () => {
      while (next < bodies.length) {
        const body = bodies[next++] as string;
        const started = performance.now();
        const res = await fetch(`${api!.url}/api/v1/jobs/batch`, { method: 'POST', headers, body });
        const text = await res.text();
        if (res.status !== 201) throw new Error(`batch answered ${res.status}: ${text.slice(0, 300)}`);
        latencies.push(performance.now() - started);
        created += (JSON.parse(text) as { data: unknown[] }).data.length;
      }
    };
    await Promise.all(Array.from({ length: o.concurrency }, worker));
    const elapsedMs = performance.now() - t0;
    const apiCpu1 = processCpuMs(api.pid);
    const pgMs = pgCpu.elapsed(await backends());
    const per1000 = (ms: number) => Math.round((ms / created) * 1000);
    const { rows } = await db.pool.query<{ jobs: string; entries: string }>(
      'SELECT (SELECT count(*) FROM jobs) AS jobs, (SELECT count(*) FROM jobs WHERE next_run_at IS NOT NULL) AS entries',
    );
    return {
      parameters: { jobs: o.count, batch: o.batch, concurrency: o.concurrency },
      created,
      elapsedMs: Math.round(elapsedMs),
      jobsPerSecond: Math.round((created / elapsedMs) * 1000),
      requestMs: summarize(latencies.map((l) => Math.round(l))),
      cpuMsPer1000: {
        api: apiCpu0 !== null && apiCpu1 !== null ? per1000(apiCpu1 - apiCpu0) : null,
        postgres: per1000(pgMs),
      },
      stored: { jobs: Number(rows[0]?.jobs) - before, entries: Number(rows[0]?.entries) - before },
    };
  } finally {
    await api?.stop();
    await queue.stop({ graceful: false, close: true });
    await prisma.$disconnect();
    await db.drop();
  }
}
