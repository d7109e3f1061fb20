// Test fixtures that write rows directly (engine tests must not depend on the API layer):
// tenants with a signing secret, jobs with their schedule entry, and a webhook sink on
// loopback that records every delivery.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import {
  generateSigningSecret,
  SIGNING_SECRET_PURPOSE,
  type MisfirePolicy,
  newId,
  nextFireTime,
  type OverlapPolicy,
  partitionOf,
  type Priority,
  Keyring,
  type ScheduleSpec,
} from '@belfry/core';
import { unlistEnded } from '@belfry/db';
import { sealTarget } from '@belfry/handlers/schemas';
import type pg from 'pg';

export const TEST_ENCRYPTION_KEY = Buffer.alloc(32, 7);
export const TEST_ENCRYPTION_KEY_MATERIAL = TEST_ENCRYPTION_KEY.toString('base64');
/** The keyring engine processes started with TEST_ENCRYPTION_KEY_MATERIAL use. */
export const TEST_KEYRING = Keyring.from(TEST_ENCRYPTION_KEY_MATERIAL);

export async function insertTenant(
  pool: pg.Pool,
  options: { maxConcurrency?: number; retentionDays?: number } = {},
): Promise<{ id: string; secret: string }> {
  const id = newId('ten');
  const secret = generateSigningSecret();
  await pool.query(
    `INSERT INTO tenants (id, name, slug, max_concurrency, retention_days) VALUES ($1, $1, $1, $2, $3)`,
    [id, options.maxConcurrency ?? 50, options.retentionDays ?? 30],
  );
  await pool.query('INSERT INTO signing_secrets (tenant_id, current_secret) VALUES ($1, $2)', [
    id,
    TEST_KEYRING.seal(secret, { tenantId: id, purpose: SIGNING_SECRET_PURPOSE }),
  ]);
  return { id, secret };
}

export interface JobOptions {
  schedule: ScheduleSpec;
  /** the http target's URL (ignored when `target` is given) */
  url?: string;
  /** a target of another kind, stored as given */
  target?: Record<string, unknown>;
  method?: string;
  headers?: Record<string, string>;
  payload?: unknown;
  retry?: { maxAttempts: number; initialDelaySeconds: number; maxDelaySeconds: number };
  timeoutSeconds?: number;
  priority?: Priority;
  misfirePolicy?: MisfirePolicy;
  overlapPolicy?: OverlapPolicy;
  jitterSeconds?: number;
  /** override the first next_run_at (e.g. in the past, to simulate an outage) */
  nextRunAt?: Date;
  partitions: number;
  now?: Date;
}

export async function insertJob(
  pool: pg.Pool,
  tenantId: string,
  o: JobOptions,
): Promise<{ id: string; nextRunAt: Date | null }> {
  const id = newId('job');
  const now = o.now ?? new Date();
  const s = o.schedule;
  const anchor = s.type === 'interval' ? s.anchor : now;
  const partition = partitionOf(id, o.partitions);
  // Stored as the API stores it: write-only header values masked, sealed into target_secrets.
  const target = sealTarget(
    TEST_KEYRING,
    tenantId,
    (o.target as Parameters<typeof sealTarget>[2] | undefined) ?? {
      type: 'http',
      url: o.url ?? '',
      method: o.method ?? 'POST',
      headers: o.headers ?? {},
    },
    null,
  );
  await pool.query(
    `INSERT INTO jobs (id, tenant_id, name, schedule_type, cron_expression, timezone, run_at, every_seconds, anchor_at,
                       target, payload, retry_max_attempts, retry_initial_delay_seconds, retry_max_delay_seconds,
                       timeout_seconds, priority, misfire_policy, overlap_policy, partition, target_secrets,
                       jitter_seconds)
     VALUES ($1, $2, $1, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20)`,
    [
      id,
      tenantId,
      s.type,
      s.type === 'cron' ? s.expression : null,
      s.type === 'cron' ? s.timezone : 'UTC',
      s.type === 'once' ? s.runAt : null,
      s.type === 'interval' ? s.everySeconds : null,
      anchor,
      JSON.stringify(target.stored),
      JSON.stringify(o.payload ?? { hello: 'world' }),
      o.retry?.maxAttempts ?? 3,
      o.retry?.initialDelaySeconds ?? 0,
      o.retry?.maxDelaySeconds ?? 1,
      o.timeoutSeconds ?? 5,
      o.priority ?? 'normal',
      o.misfirePolicy ?? 'run_once',
      o.overlapPolicy ?? 'allow',
      partition,
      target.sealed,
      o.jitterSeconds ?? 0,
    ],
  );
  const next = o.nextRunAt ?? (s.type === 'once' ? s.runAt : nextFireTime(s, now));
  if (next) {
    await pool.query('UPDATE jobs SET next_run_at = $2 WHERE id = $1', [id, next]);
  }
  return { id, nextRunAt: next };
}

/**
 * The tail of a fixture's `WITH r AS (INSERT INTO runs ... RETURNING id, job_id, scheduled_time,
 * finished_at)`: lists the inserted run in open_runs when it is open, as the engine's inserters
 * and the migration do (packages/db/src/sql/open-runs.ts).
 */
export const LIST_OPEN_RUNS = `), listed AS (
       INSERT INTO open_runs (job_id, scheduled_time, run_id)
       SELECT job_id, scheduled_time, id FROM r WHERE finished_at IS NULL
     ) SELECT 1`;

/**
 * Moves a run on as a worker would (running, failed = waiting a minute for a retry), or ends it
 * with a final status as a completion does: finished and unlisted from open_runs in the same
 * statement. Answers how many open_runs rows that removed (1 when it ended a listed run).
 */
export async function setRunStatus(pool: pg.Pool, runId: string, status: string): Promise<number> {
  const final = ['succeeded', 'dead', 'cancelled', 'skipped'].includes(status);
  const { rowCount } = await pool.query(
    `WITH e AS (
       UPDATE runs SET status = $2, attempt = attempt + 1,
              next_attempt_at = CASE WHEN $2 = 'failed' THEN now() + interval '1 minute' END,
              finished_at = CASE WHEN $3 THEN now() END
        WHERE id = $1 RETURNING id, scheduled_time, job_id, finished_at)
     ${unlistEnded('e', 'e.finished_at IS NOT NULL')}`,
    [runId, status, final],
  );
  return rowCount ?? 0;
}

/**
 * A one-off job whose scheduled run `workerId` has claimed ahead of its time: the run `running`
 * under that worker's lease (attempt 1, a minute long), due `at`, the job's schedule entry gone
 * as the scheduler leaves it once the occurrence is materialized.
 */
export async function insertClaimedAheadRun(
  pool: pg.Pool,
  tenantId: string,
  o: { at: Date; workerId: string; partitions: number },
): Promise<{ jobId: string; runId: string }> {
  const job = await insertJob(pool, tenantId, {
    schedule: { type: 'once', runAt: o.at },
    url: 'http://127.0.0.1:9/hook',
    partitions: o.partitions,
  });
  await pool.query('UPDATE jobs SET next_run_at = NULL WHERE id = $1', [job.id]);
  const runId = newId('run', o.at);
  await pool.query(
    `WITH r AS (
       INSERT INTO runs (id, tenant_id, job_id, scheduled_time, status, attempt, trigger, worker_id, lease_expires_at,
                         started_at, attempt_started_at)
       VALUES ($1, $2, $3, $4, 'running', 1, 'schedule', $5, now() + interval '1 minute', $4, $4)
       RETURNING id, job_id, scheduled_time, finished_at
     ${LIST_OPEN_RUNS}`,
    [runId, tenantId, job.id, o.at, o.workerId],
  );
  return { jobId: job.id, runId };
}

/**
 * The leases of claimed runs run out (their worker died, or stopped heartbeating): the run's own
 * lease and the copy by which the reaper knows which runs to look at — in the run's open_runs row
 * (an engine's claim) or in running_runs (a pull worker's).
 */
export async function expireLeases(pool: pg.Pool, runIds: string[]): Promise<void> {
  await pool.query(
    `WITH r AS (
       UPDATE runs SET lease_expires_at = now() - interval '1 second' WHERE id = ANY($1)
       RETURNING id, scheduled_time, job_id
     ), o AS (
       UPDATE open_runs o SET leased_until = now() - interval '1 second'
         FROM r WHERE o.job_id = r.job_id AND o.run_id = r.id AND o.scheduled_time = r.scheduled_time
          AND o.leased_until IS NOT NULL
     )
     UPDATE running_runs x SET leased_until = now() - interval '1 second'
       FROM r WHERE x.run_id = r.id AND x.scheduled_time = r.scheduled_time`,
    [runIds],
  );
}

export interface Delivery {
  at: number;
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

export interface Sink {
  url: string;
  deliveries: Delivery[];
  /** decide the response per request; default 200 */
  respond: (d: Delivery) => { status: number; body?: string; headers?: Record<string, string>; delayMs?: number };
  waitFor(predicate: (all: Delivery[]) => boolean, timeoutMs?: number): Promise<Delivery[]>;
  close(): Promise<void>;
  server: Server;
}

export async function startSink(): Promise<Sink> {
  const deliveries: Delivery[] = [];
  const waiters = new Set<() => void>();
  const sink = {} as Sink;
  sink.deliveries = deliveries;
  sink.respond = () => ({ status: 200 });
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const d: Delivery = {
        at: Date.now(),
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      deliveries.push(d);
      for (const w of waiters) w();
      const r = sink.respond(d);
      const send = () => {
        if (res.destroyed) return;
        res.writeHead(r.status, r.headers ?? {}).end(r.body ?? 'ok');
      };
      if (r.delayMs) setTimeout(send, r.delayMs);
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;
  sink.url = `http://127.0.0.1:${port}/hook`;
  sink.server = server;
  sink.waitFor = (predicate, timeoutMs = 30_000) =>
    new Promise((resolve, reject) => {
      if (predicate(deliveries)) return resolve(deliveries);
      const check = () => {
        if (predicate(deliveries)) {
          waiters.delete(check);
          clearTimeout(timer);
          resolve(deliveries);
        }
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`sink: condition not met within ${timeoutMs} ms (${deliveries.length} deliveries)`));
      }, timeoutMs);
      waiters.add(check);
    });
  sink.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return sink;
}

/** Polls a query until the predicate holds (for state the engine writes to the database). */
export async function waitForRows<R extends object>(
  pool: pg.Pool,
  sql: string,
  params: unknown[],
  predicate: (rows: R[]) => boolean,
  timeoutMs = 30_000,
): Promise<R[]> {
  return waitForValue(async () => (await pool.query<R>(sql, params)).rows, predicate, timeoutMs);
}

/** Reads `read()` every 50 ms until `predicate` holds; answers that value. */
export async function waitForValue<T>(
  read: () => Promise<T>,
  predicate: (value: T) => boolean,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (predicate(value)) return value;
    if (Date.now() > deadline)
      throw new Error(`condition not met within ${timeoutMs} ms; last value: ${JSON.stringify(value).slice(0, 2000)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
