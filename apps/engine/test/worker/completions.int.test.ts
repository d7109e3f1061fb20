// Recording outcomes on their own: batched, fenced by the lease (a worker that no longer holds a
// run records nothing, and a run cancelled while it ran gets its attempt recorded as cancelled),
// retries and released runs queued again on the route they were submitted with.
import type { QueueRoute } from '@belfry/core';
import { type AttemptOutcome, type ClaimedRun, claimRuns, type QueueClient, queuedMessages } from '@belfry/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertJob, insertTenant } from '../../../../test/fixtures';
import { createLogger } from '../../src/logger';
import { CompletionBatcher } from '../../src/worker/completions';
import { queueRuns, createQueueTestDatabase, type QueueTestDatabase } from '../support';

const WORKER = 'completions-test';

describe('CompletionBatcher', () => {
  let db: QueueTestDatabase;
  let boss: QueueClient;
  let batcher: CompletionBatcher;
  let tenantId: string;
  let jobId: string;
  let push: QueueRoute;
  let offset = 0;

  beforeAll(async () => {
    db = await createQueueTestDatabase();
    boss = db.boss;
    batcher = new CompletionBatcher(db.pool, boss, WORKER, createLogger('silent', {}));
    tenantId = (await insertTenant(db.pool)).id;
    jobId = (
      await insertJob(db.pool, tenantId, {
        schedule: { type: 'once', runAt: new Date(Date.now() + 3_600_000) },
        url: 'http://127.0.0.1:9/never-called',
        partitions: db.partitions,
      })
    ).id;
    push = { lane: 'push', tenantId, priority: 'normal' };
  });
  afterAll(async () => {
    await batcher?.drain();
    await db?.destroy();
  });

  /** Runs claimed by this worker (their queue messages are left behind, as after a fetch). */
  const claimed = async (n: number): Promise<ClaimedRun[]> => {
    const base = Math.floor(Date.now() / 1000) * 1000 - 60_000;
    const runs = await queueRuns(db.pool, boss, {
      tenantId,
      jobId,
      times: Array.from({ length: n }, () => new Date(base + offset++)),
    });
    return claimRuns(
      db.pool,
      WORKER,
      30_000,
      runs.map((r) => r.id),
      runs.map((r) => r.scheduled_time),
    );
  };
  const outcome = (run: ClaimedRun, extra: Partial<AttemptOutcome> = {}): AttemptOutcome => ({
    runId: run.id,
    scheduledTime: run.scheduled_time,
    attempt: run.attempt,
    runStatus: 'succeeded',
    attemptStatus: 'succeeded',
    nextAttemptAt: null,
    httpStatus: 200,
    durationMs: 5,
    error: null,
    responseSnippet: 'ok',
    requestHeaders: { 'webhook-id': run.id },
    ...extra,
  });
  const state = async (id: string) => {
    const run = await db.pool.query('SELECT status, next_attempt_at, last_error FROM runs WHERE id = $1', [id]);
    const attempts = await db.pool.query(
      'SELECT attempt, status, http_status, duration_ms, error, response_snippet, request_headers FROM run_attempt_history WHERE run_id = $1',
      [id],
    );
    return { run: run.rows[0], attempts: attempts.rows };
  };

  /** run_attempts rows themselves (the view run_attempt_history adds the attempts run rows hold) */
  const rowsOf = async (ids: string[]) =>
    (await db.pool.query('SELECT attempt, status, http_status FROM run_attempts WHERE run_id = ANY($1::text[])', [ids]))
      .rows;

  it('records outcomes submitted together, each told it was recorded', async () => {
    const runs = await claimed(3);
    const recorded = await Promise.all(runs.map((r) => batcher.submit(outcome(r), push)));
    expect(recorded).toEqual([true, true, true]);
    for (const r of runs) {
      expect(await state(r.id)).toEqual({
        run: { status: 'succeeded', next_attempt_at: null, last_error: null },
        attempts: [
          {
            attempt: 1,
            status: 'succeeded',
            http_status: 200,
            duration_ms: 5,
            error: null,
            response_snippet: 'ok',
            request_headers: { 'webhook-id': r.id },
          },
        ],
      });
    }
    // The attempt's one row names the worker and the start the claim left on the run row.
    const written = await db.pool.query(
      `SELECT a.worker_id, a.started_at = r.attempt_started_at AS claimed_start
         FROM run_attempt_history a JOIN runs r ON r.id = a.run_id AND r.scheduled_time = a.scheduled_time
        WHERE a.run_id = ANY($1::text[])`,
      [runs.map((r) => r.id)],
    );
    expect(written.rows).toEqual(runs.map(() => ({ worker_id: WORKER, claimed_start: true })));
    // An attempt that ends its run stays on the run row (migration 20261207060000): no row of its own.
    expect(await rowsOf(runs.map((r) => r.id))).toEqual([]);
    const onRun = await db.pool.query(
      `SELECT attempt_status, http_status, duration_ms, response_snippet, request_headers FROM runs WHERE id = $1`,
      [runs[0]!.id],
    );
    expect(onRun.rows).toEqual([
      {
        attempt_status: 'succeeded',
        http_status: 200,
        duration_ms: 5,
        response_snippet: 'ok',
        request_headers: { 'webhook-id': runs[0]!.id },
      },
    ]);
  });

  it('queues a retry on the route it was given, claimable at its next attempt time', async () => {
    const [run] = await claimed(1);
    const at = new Date(Date.now() + 45_000);
    const container: QueueRoute = { lane: 'container', tenantId, priority: 'high' };
    const retry = outcome(run!, {
      runStatus: 'failed',
      attemptStatus: 'failed',
      nextAttemptAt: at,
      httpStatus: 503,
      error: 'HTTP 503',
    });
    expect(await batcher.submit(retry, container)).toBe(true);
    expect((await state(run!.id)).run).toEqual({ status: 'failed', next_attempt_at: at, last_error: 'HTTP 503' });
    // The run goes on: its attempt gets a row of its own (the next claim takes the run row's
    // attempt columns over), and the run row holds no outcome.
    expect(await rowsOf([run!.id])).toEqual([{ attempt: 1, status: 'failed', http_status: 503 }]);
    const onRun = await db.pool.query('SELECT attempt_status, http_status FROM runs WHERE id = $1', [run!.id]);
    expect(onRun.rows).toEqual([{ attempt_status: null, http_status: null }]);
    const messages = (await queuedMessages(db.pool, { runIds: [run!.id] })).filter((m) => m.startAfter > new Date());
    expect(messages.map((m) => [m.name, m.startAfter.getTime()])).toEqual([[`c.${tenantId}.high`, at.getTime()]]);
  });

  it('records nothing for a run this worker no longer holds; a cancelled run gets its attempt closed', async () => {
    const [cancelled, reaped] = await claimed(2);
    await db.pool.query(`UPDATE runs SET status = 'cancelled' WHERE id = $1`, [cancelled!.id]);
    // What the reaper does to a run whose lease expired: the attempt failed, the run moves on.
    await db.pool.query(`UPDATE runs SET status = 'failed', lease_expires_at = NULL WHERE id = $1`, [reaped!.id]);
    expect(await batcher.submit(outcome(cancelled!, { durationMs: 9 }), push)).toBe(false);
    expect(await batcher.submit(outcome(reaped!), push)).toBe(false);

    expect(await state(cancelled!.id)).toMatchObject({
      run: { status: 'cancelled' },
      attempts: [{ status: 'cancelled', duration_ms: 9, error: 'run cancelled while running', response_snippet: null }],
    });
    // The stale outcome writes no attempt row for a run taken from it (the reaper records the lost attempt).
    expect(await state(reaped!.id)).toMatchObject({ run: { status: 'failed' }, attempts: [] });
  });

  it('records the outcome of a run whose lease expired while nobody took it (the database was away)', async () => {
    const [run] = await claimed(1);
    await db.pool.query(`UPDATE runs SET lease_expires_at = now() - interval '1 second' WHERE id = $1`, [run!.id]);
    expect(await batcher.submit(outcome(run!), push)).toBe(true);
    expect(await state(run!.id)).toMatchObject({ run: { status: 'succeeded' }, attempts: [{ status: 'succeeded' }] });
  });
});
