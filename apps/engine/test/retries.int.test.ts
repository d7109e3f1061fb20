// Delivery outcomes with a real engine node and a loopback target: retries with backoff and
// Retry-After, timeouts, and the dead letter for non-retryable answers and exhausted attempts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../test/db';
import { type EngineNode, startEngineNode } from '../../../test/engine-nodes';
import {
  type Delivery,
  insertJob,
  insertTenant,
  type JobOptions,
  type Sink,
  startSink,
  TEST_ENCRYPTION_KEY_MATERIAL,
  waitForRows,
} from '../../../test/fixtures';

type Answer = ReturnType<Sink['respond']>;

describe('engine: retries, timeouts and the dead letter', () => {
  let db: TestDatabase;
  let node: EngineNode;
  let sink: Sink;
  let tenantId: string;
  // Each job gets its own script of answers, one per attempt (the last one repeats).
  const scripts = new Map<string, Answer[]>();

  beforeAll(async () => {
    db = await createTestDatabase();
    await db.pool.query('SELECT 1');
    sink = await startSink();
    sink.respond = (d) => {
      const script = scripts.get(String(d.headers['belfry-job-id'])) ?? [{ status: 200 }];
      const attempt = Number(d.headers['belfry-attempt']);
      return script[Math.min(attempt, script.length) - 1] ?? { status: 200 };
    };
    node = await startEngineNode({
      databaseUrl: db.url,
      nodeId: 'retries-1',
      env: { BELFRY_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY_MATERIAL },
    });
    tenantId = (await insertTenant(db.pool)).id;
  });
  afterAll(async () => {
    await node?.stop();
    await sink?.close();
    await db?.destroy();
  });

  /** A one-off job due in a moment whose target answers `script`. */
  const job = async (script: Answer[], options: Partial<JobOptions> = {}) => {
    const created = await insertJob(db.pool, tenantId, {
      schedule: { type: 'once', runAt: new Date(Date.now() + 300) },
      url: sink.url,
      partitions: db.partitions,
      ...options,
    });
    scripts.set(created.id, script);
    return created.id;
  };
  const deliveriesOf = (jobId: string) => sink.deliveries.filter((d) => d.headers['belfry-job-id'] === jobId);
  const settled = (jobId: string, status: string) =>
    waitForRows<{ id: string; status: string; attempt: number; finished_at: Date | null; last_error: string | null }>(
      db.pool,
      'SELECT id, status, attempt, finished_at, last_error FROM runs WHERE job_id = $1',
      [jobId],
      (rows) => rows[0]?.status === status,
    );
  const attemptsOf = async (jobId: string) =>
    (
      await db.pool.query<{ attempt: number; status: string; http_status: number | null; error: string | null }>(
        'SELECT attempt, status, http_status, error FROM run_attempt_history WHERE job_id = $1 ORDER BY attempt',
        [jobId],
      )
    ).rows;

  it.each([
    ['without Retry-After', {}],
    ['with Retry-After: 1', { 'retry-after': '1' }],
  ])('503 twice (%s), then 200: succeeds on attempt 3 under one webhook-id', async (_label, headers) => {
    const retryAfter = 'retry-after' in headers;
    const id = await job(
      [{ status: 503, headers, body: 'busy' }, { status: 503, headers, body: 'busy' }, { status: 200 }],
      {
        retry: { maxAttempts: 5, initialDelaySeconds: 0, maxDelaySeconds: 10 },
      },
    );
    const [run] = await settled(id, 'succeeded');
    expect(run).toMatchObject({ status: 'succeeded', attempt: 3, last_error: null });
    expect(run?.finished_at).toBeInstanceOf(Date);

    const deliveries: Delivery[] = deliveriesOf(id);
    expect(deliveries.map((d) => d.headers['belfry-attempt'])).toEqual(['1', '2', '3']);
    expect(new Set(deliveries.map((d) => d.headers['webhook-id']))).toEqual(new Set([run?.id]));
    expect(new Set(deliveries.map((d) => d.headers['idempotency-key']))).toEqual(new Set([run?.id]));
    expect(new Set(deliveries.map((d) => d.body)).size).toBe(1);
    if (retryAfter) {
      // The target asked for a second between attempts; the backoff alone (0 s) would not wait.
      for (let i = 1; i < deliveries.length; i++) {
        expect(deliveries[i]!.at - deliveries[i - 1]!.at).toBeGreaterThanOrEqual(900);
      }
    }

    const attempts = await attemptsOf(id);
    expect(attempts.map((a) => [a.attempt, a.status, a.http_status])).toEqual([
      [1, 'failed', 503],
      [2, 'failed', 503],
      [3, 'succeeded', 200],
    ]);
    expect(attempts[0]?.error).toMatch(/^HTTP 503/);
  });

  it('a target slower than timeoutSeconds: each attempt times out, is retried, and the run goes dead', async () => {
    const id = await job([{ status: 200, delayMs: 4_000 }], {
      timeoutSeconds: 1,
      retry: { maxAttempts: 2, initialDelaySeconds: 0, maxDelaySeconds: 1 },
    });
    const [run] = await settled(id, 'dead');
    expect(run?.attempt).toBe(2);
    expect(run?.last_error).toMatch(/timed out/i);
    const attempts = await attemptsOf(id);
    expect(attempts.map((a) => [a.attempt, a.status, a.http_status])).toEqual([
      [1, 'failed', null],
      [2, 'failed', null],
    ]);
    for (const a of attempts) expect(a.error).toMatch(/timed out after 1s/);
    expect(deliveriesOf(id).map((d) => d.headers['belfry-attempt'])).toEqual(['1', '2']);
  });

  it('404 is not retryable: dead after one attempt, whatever maxAttempts says', async () => {
    const id = await job([{ status: 404, body: 'no such hook' }], {
      retry: { maxAttempts: 5, initialDelaySeconds: 0, maxDelaySeconds: 1 },
    });
    const [run] = await settled(id, 'dead');
    expect(run).toMatchObject({ attempt: 1 });
    expect(run?.last_error).toMatch(/^HTTP 404/);
    const attempts = await attemptsOf(id);
    expect(attempts.map((a) => [a.attempt, a.status, a.http_status])).toEqual([[1, 'failed', 404]]);
    expect(deliveriesOf(id)).toHaveLength(1);
  });

  it('500 with maxAttempts 2: retried once, then dead', async () => {
    const id = await job([{ status: 500, body: 'boom' }], {
      retry: { maxAttempts: 2, initialDelaySeconds: 0, maxDelaySeconds: 1 },
    });
    const [run] = await settled(id, 'dead');
    expect(run).toMatchObject({ attempt: 2 });
    const attempts = await attemptsOf(id);
    expect(attempts.map((a) => [a.attempt, a.status, a.http_status])).toEqual([
      [1, 'failed', 500],
      [2, 'failed', 500],
    ]);
    const deliveries = deliveriesOf(id);
    expect(deliveries.map((d) => d.headers['belfry-attempt'])).toEqual(['1', '2']);
    expect(deliveries[0]?.headers['webhook-id']).toBe(deliveries[1]?.headers['webhook-id']);
  });
});
