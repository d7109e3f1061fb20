// Test harness for the API: a cloned database, real pg-boss and Prisma clients, the REST
// handler, and helpers to make tenants, keys and requests. No mocks: requests go through
// the real router into real PostgreSQL.
import {
  createPool,
  createPrisma,
  createQueueClient,
  type PrismaClient,
  type QueueClient,
  queuedMessages,
} from '@belfry/db';
import { Keyring } from '@belfry/core';
import { createTestDatabase, type TestDatabase } from '../../../test/db';
import { LIST_OPEN_RUNS } from '../../../test/fixtures';
import {
  type Actor,
  type ApiKeyScope,
  type Clock,
  createRestHandler,
  createTenant,
  type Logger,
  type ServiceDeps,
} from '../src/index';

export const silentLog: Logger = { info() {}, warn() {}, error() {} };

/** A clock tests can move; starts at real time so run partitions exist. */
export class TestClock implements Clock {
  private offsetMs = 0;
  now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }
  advance(ms: number): void {
    this.offsetMs += ms;
  }
}

export interface Harness {
  db: TestDatabase;
  deps: ServiceDeps;
  clock: TestClock;
  queue: QueueClient;
  prisma: PrismaClient;
  handle: (request: Request) => Promise<Response>;
  close(): Promise<void>;
}

export interface HarnessOptions {
  /** the URL the services connect to (e.g. through a pooler), from the test database's name */
  connectVia?: (database: string) => string;
}

export async function createHarness(options: HarnessOptions = {}): Promise<Harness> {
  const db = await createTestDatabase();
  const url = options.connectVia ? options.connectVia(db.name) : db.url;
  const prisma = createPrisma(url, { max: 4 });
  const queue = await createQueueClient(url, { max: 4 });
  const pool = options.connectVia ? createPool(url, { max: 10, name: 'belfry-test-api' }) : db.pool;
  const clock = new TestClock();
  const deps: ServiceDeps = {
    prisma,
    pool,
    clock,
    log: silentLog,
    keyring: Keyring.from('test-encryption-key-material'),
    partitions: db.partitions,
    queue,
  };
  const handle = createRestHandler(async () => deps, { log: silentLog });
  return {
    db,
    deps,
    clock,
    queue,
    prisma,
    handle,
    async close() {
      await queue.stop({ graceful: false, close: true });
      await prisma.$disconnect();
      if (pool !== db.pool) await pool.end();
      await db.destroy();
    },
  };
}

export interface TestTenant {
  tenantId: string;
  key: string;
  actor: Actor;
}

let tenantCounter = 0;

export async function makeTenant(h: Harness, scopes?: ApiKeyScope[]): Promise<TestTenant> {
  const created = await createTenant(h.deps, {
    name: `tenant ${++tenantCounter}`,
    apiKey: { name: 'test', ...(scopes ? { scopes } : {}) },
  });
  // The default limit (100 burst, 50/s) would make a test that creates 120 jobs pass or fail
  // by how fast this machine is. Tests of the limit itself set their own.
  await h.db.pool.query('UPDATE tenants SET rate_limit_per_second = 100000, rate_limit_burst = 100000 WHERE id = $1', [
    created.tenantId,
  ]);
  return {
    tenantId: created.tenantId,
    key: created.apiKey as string,
    actor: { type: 'system', id: null, tenantId: created.tenantId },
  };
}

// biome-ignore lint/suspicious/noExplicitAny: bodies are checked against the response schemas in the tests
export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface RequestOptions {
  body?: unknown;
  /** sent as is, instead of JSON.stringify(body) */
  raw?: string | Uint8Array<ArrayBuffer> | ReadableStream<Uint8Array>;
  headers?: Record<string, string>;
  key?: string | null;
}

/** Calls the REST handler like an HTTP client would. */
export async function call(
  h: Harness,
  method: string,
  path: string,
  options: RequestOptions = {},
): Promise<ApiResponse> {
  const headers: Record<string, string> = {};
  if (options.key) headers.authorization = `Bearer ${options.key}`;
  let body: BodyInit | undefined;
  if (options.raw !== undefined) body = options.raw;
  else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] = 'application/json';
  }
  // duplex: a streamed body (no Content-Length) needs it; Node's RequestInit type lacks it.
  const init = { method, headers: { ...headers, ...options.headers }, body, duplex: 'half' } as RequestInit;
  const response = await h.handle(new Request(`http://localhost${path}`, init));
  const text = await response.text();
  let parsed: unknown = null;
  if (text) {
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = text;
    }
  }
  return { status: response.status, headers: response.headers, body: parsed, text };
}

/** A client bound to one API key. */
export function client(h: Harness, key: string) {
  return {
    get: (path: string, o: RequestOptions = {}) => call(h, 'GET', path, { key, ...o }),
    post: (path: string, body?: unknown, o: RequestOptions = {}) => call(h, 'POST', path, { key, body, ...o }),
    patch: (path: string, body?: unknown, o: RequestOptions = {}) => call(h, 'PATCH', path, { key, body, ...o }),
    del: (path: string, o: RequestOptions = {}) => call(h, 'DELETE', path, { key, ...o }),
  };
}

export function jobBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: 'daily-report',
    schedule: { type: 'cron', expression: '0 7 * * *', timezone: 'Europe/Berlin' },
    target: { type: 'http', url: 'https://example.com/hook', method: 'POST', headers: { 'x-team': 'billing' } },
    payload: { any: 'json' },
    ...overrides,
  };
}

/** Row counts that malformed requests must leave untouched. */
export interface Counts {
  jobs: number;
  runs: number;
  entries: number;
  idempotency_keys: number;
  queued: number;
}

export async function counts(h: Harness): Promise<Counts> {
  const { rows } = await h.db.pool.query<Omit<Counts, 'queued'>>(
    `SELECT (SELECT count(*)::int FROM jobs) AS jobs, (SELECT count(*)::int FROM runs) AS runs,
            (SELECT count(*)::int FROM jobs WHERE next_run_at IS NOT NULL) AS entries,
            (SELECT count(*)::int FROM idempotency_keys) AS idempotency_keys`,
  );
  return { ...(rows[0] as Omit<Counts, 'queued'>), queued: (await queuedMessages(h.db.pool)).length };
}

let lastDefaultTime = 0;
function nextDefaultTime(): Date {
  lastDefaultTime = Math.max(Date.now(), lastDefaultTime + 1);
  return new Date(lastDefaultTime);
}

/** Inserts a finished run directly, as the engine would leave it. */
export async function insertRun(
  h: Harness,
  run: {
    tenantId: string;
    jobId: string;
    status: string;
    scheduledTime?: Date;
    finishedAt?: Date | null;
    trigger?: string;
    attempts?: number;
  },
): Promise<string> {
  const { newId } = await import('@belfry/core');
  // Without a time given, each run gets its own millisecond: two scheduled runs of one job at
  // the same time would be the same occurrence (and a fast machine inserts two in one ms).
  const scheduled = run.scheduledTime ? new Date(Math.floor(run.scheduledTime.getTime())) : nextDefaultTime();
  const id = newId('run', scheduled);
  const finished = run.finishedAt === undefined ? new Date() : run.finishedAt;
  await h.db.pool.query(
    // an open run is listed in open_runs, as the engine's inserters do (open-runs.ts in @belfry/db)
    `WITH r AS (
       INSERT INTO runs (id, tenant_id, job_id, scheduled_time, status, attempt, trigger, finished_at, started_at, last_error,
                         dead_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $4, $9, CASE WHEN $5 = 'dead' THEN $8::timestamptz END)
       RETURNING id, job_id, scheduled_time, finished_at
     ${LIST_OPEN_RUNS}`,
    [
      id,
      run.tenantId,
      run.jobId,
      scheduled,
      run.status,
      run.attempts ?? 0,
      run.trigger ?? 'schedule',
      finished,
      run.status === 'dead' ? 'HTTP 503' : null,
    ],
  );
  for (let a = 1; a <= (run.attempts ?? 0); a++) {
    await h.db.pool.query(
      `INSERT INTO run_attempts (run_id, scheduled_time, tenant_id, job_id, attempt, worker_id, status, started_at, finished_at,
                                 http_status, duration_ms, error, response_snippet)
       VALUES ($1, $2, $3, $4, $5, 'worker-1', 'failed', $2, $2, 503, 120, 'HTTP 503', 'unavailable')`,
      [id, scheduled, run.tenantId, run.jobId, a],
    );
  }
  return id;
}
