// Bench plumbing: a fresh database on the configured server (./database), the webhook sink
// and the engine nodes as separate processes, as in production.
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import type pg from 'pg';
import { Pool } from 'undici';
import { findRepoRoot } from '@belfry/db';
import { ENGINE_NODE_FLAGS } from '../../apps/engine/src/node-flags';
import { benchEnv, childEnv, cpuProfArgs } from './env';
import type { SinkRecord } from './sink';

export {
  benchDatabase,
  type BenchDb,
  createDatabase,
  type EmptyDatabase,
  releaseServer,
  serverVersion,
} from './database';

const root = findRepoRoot();
/** Node 22 from the npm package, whatever the system has (see DEPENDENCIES.md) */
export const nodeBin = join(root, 'node_modules/.bin/node');

export interface Sink {
  url: string;
  /** the sink process's pid (for its CPU, bench/lib/proc.ts) */
  pid: number | undefined;
  records: SinkRecord[];
  waitFor(count: number, timeoutMs: number): Promise<boolean>;
  stop(): Promise<void>;
}

export async function startSink(): Promise<Sink> {
  const child = spawn(nodeBin, ['--import', 'tsx', join(root, 'bench/lib/sink-process.ts')], {
    cwd: root,
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const records: SinkRecord[] = [];
  let port = 0;
  let ready: () => void = () => {};
  const started = new Promise<void>((r) => {
    ready = r;
  });
  createInterface({ input: child.stdout! }).on('line', (line) => {
    if (line.startsWith('{')) {
      port = (JSON.parse(line) as { port: number }).port;
      ready();
      return;
    }
    const [at, runId, jobId, scheduled, attempt] = line.split(',');
    records.push({
      at: Number(at),
      runId: runId ?? '',
      jobId: jobId ?? '',
      scheduled: Number(scheduled),
      attempt: Number(attempt),
    });
  });
  await started;
  await warmSink(port);
  return {
    url: `http://127.0.0.1:${port}/hook`,
    pid: child.pid,
    records,
    async waitFor(count, timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      while (records.length < count) {
        if (Date.now() > deadline) return false;
        await new Promise((r) => setTimeout(r, 100));
      }
      return true;
    },
    async stop() {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    },
  };
}

/**
 * The sink stands for a tenant's server, which is warm when Belfry calls it: before any
 * scenario it answers a few thousand requests (unrecorded) so that its JIT and sockets are
 * not part of the first runs' start lag.
 */
async function warmSink(port: number): Promise<void> {
  const pool = new Pool(`http://127.0.0.1:${port}`, { connections: 32, pipelining: 1 });
  try {
    let sent = 0;
    const total = 5_000;
    const body = JSON.stringify({ bench: 'warmup' });
    await Promise.all(
      Array.from({ length: 32 }, async () => {
        while (sent++ < total) {
          const res = await pool.request({
            path: '/warmup',
            method: 'POST',
            headers: { 'content-type': 'application/json', 'webhook-id': 'warmup' },
            body,
          });
          await res.body.dump();
        }
      }),
    );
  } finally {
    await pool.close();
  }
}

export interface Engines {
  children: ChildProcess[];
  stop(): Promise<void>;
}

export async function startEngines(url: string, count: number, env: Record<string, string> = {}): Promise<Engines> {
  const children: ChildProcess[] = [];
  const started: Promise<void>[] = [];
  for (let i = 0; i < count; i++) {
    // BENCH_CPU_PROF=<dir> writes a V8 CPU profile of each engine node there on exit.
    const prof = cpuProfArgs();
    const child = spawn(
      nodeBin,
      [
        ...prof,
        ...ENGINE_NODE_FLAGS,
        '--import',
        'tsx',
        '--import',
        join(root, 'bench/lib/exit-with-bench.ts'),
        join(root, 'apps/engine/src/main.ts'),
      ],
      {
        cwd: root,
        env: childEnv({
          DATABASE_URL: url,
          BELFRY_NODE_ID: `bench-${i + 1}`,
          BELFRY_ALLOW_PRIVATE_TARGETS: '1',
          BELFRY_METRICS_PORT: '0',
          BELFRY_LOG_LEVEL: 'info',
          BELFRY_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
          ...env,
        }),
        // stdin: a pipe the node watches (exit-with-bench.ts)
        stdio: ['pipe', 'pipe', 'inherit'],
      },
    );
    children.push(child);
    started.push(
      new Promise((resolve, reject) => {
        const rl = createInterface({ input: child.stdout! });
        // BENCH_ENGINE_LOG_DIR=<dir> keeps each engine node's log (bench-<n>.log) there.
        const keep = benchEnv.BENCH_ENGINE_LOG_DIR
          ? createWriteStream(join(benchEnv.BENCH_ENGINE_LOG_DIR, `bench-${i + 1}.log`))
          : undefined;
        rl.once('close', () => keep?.end());
        rl.on('line', (line) => {
          keep?.write(`${line}\n`);
          if (line.includes('"engine node started"')) resolve();
          if (line.includes('"level":50') || line.includes('"level":60'))
            process.stderr.write(`[bench-${i + 1}] ${line.slice(0, 400)}\n`);
        });
        child.once('exit', (code, signal) => reject(new Error(`engine bench-${i + 1} exited with ${code ?? signal}`)));
      }),
    );
  }
  await Promise.all(started);
  return {
    children,
    async stop() {
      await Promise.all(
        children.map(
          (c) =>
            new Promise<void>((resolve) => {
              if (c.exitCode !== null || c.signalCode !== null) return resolve();
              c.once('exit', () => resolve());
              c.kill('SIGTERM');
              setTimeout(() => c.kill('SIGKILL'), 30_000).unref();
            }),
        ),
      );
    },
  };
}

export const SECRET = 'whsec_' + Buffer.alloc(32, 1).toString('base64');

/** Tenants with a sealed signing secret, straight into the tables. */
export async function insertTenants(pool: pg.Pool, ids: string[], maxConcurrency: number): Promise<void> {
  const { Keyring, SIGNING_SECRET_PURPOSE } = await import('@belfry/core');
  const keyring = Keyring.from(Buffer.alloc(32, 7).toString('base64'));
  for (const id of ids) {
    await pool.query(
      `INSERT INTO tenants (id, name, slug, max_concurrency) VALUES ($1, $1, $1, $2) ON CONFLICT (id) DO NOTHING`,
      [id, maxConcurrency],
    );
    await pool.query(
      `INSERT INTO signing_secrets (tenant_id, current_secret) VALUES ($1, $2) ON CONFLICT (tenant_id) DO NOTHING`,
      [id, keyring.seal(SECRET, { tenantId: id, purpose: SIGNING_SECRET_PURPOSE })],
    );
  }
}

/**
 * Bulk-loads one-off jobs due at `runAt`, spread over tenants, with their next occurrence set
 * (as a tool would: one INSERT ... SELECT per table, ids and partitions computed in SQL with
 * the same hash as the product — see partitionSql).
 */
export async function insertOneOffJobs(
  pool: pg.Pool,
  options: {
    count: number;
    tenants: string[];
    runAt: Date;
    url: string;
    prefix: string;
    partitions: number;
    /** a whole stored target (amqp, nats, pull, ...) instead of an http POST to `url` */
    target?: Record<string, unknown>;
  },
): Promise<void> {
  const { newId, partitionOf } = await import('@belfry/core');
  const batch = 5_000;
  for (let offset = 0; offset < options.count; offset += batch) {
    const n = Math.min(batch, options.count - offset);
    const ids: string[] = [];
    const tenants: string[] = [];
    const parts: number[] = [];
    for (let i = 0; i < n; i++) {
      const id = newId('job');
      ids.push(id);
      tenants.push(options.tenants[(offset + i) % options.tenants.length] as string);
      parts.push(partitionOf(id, options.partitions));
    }
    await pool.query(
      `INSERT INTO jobs (id, tenant_id, name, schedule_type, run_at, target, payload, timeout_seconds, partition,
                         retry_max_attempts, next_run_at)
       SELECT id, tenant_id, $4 || id, 'once', $5, $6::jsonb, '{"bench":true}'::jsonb, 10, partition, 3, $5
       FROM unnest($1::text[], $2::text[], $3::int[]) AS t(id, tenant_id, partition)`,
      [
        ids,
        tenants,
        parts,
        options.prefix,
        options.runAt,
        JSON.stringify(options.target ?? { type: 'http', url: options.url, method: 'POST', headers: {} }),
      ],
    );
  }
}

export interface RestServer {
  url: string;
  /** the API process's pid, for its CPU time */
  pid: number | undefined;
  stop(): Promise<void>;
}

/** The REST API in a process of its own (bench/lib/api-process.ts), as the web app serves it. */
export async function startRestServer(databaseUrl: string): Promise<RestServer> {
  const child = spawn(nodeBin, [...cpuProfArgs(), '--import', 'tsx', join(root, 'bench/lib/api-process.ts')], {
    cwd: root,
    env: childEnv({ DATABASE_URL: databaseUrl }),
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', (line) =>
      resolve((JSON.parse(line) as { port: number }).port),
    );
    child.once('exit', (code) => reject(new Error(`the REST server exited with ${code}`)));
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
