// The reaper on real PostgreSQL: a run whose lease expired is a failed attempt. It is retried
// with the job's backoff (next_attempt_at in the future, its queue message deferred to then),
// and a run whose worker dies on every attempt ends dead after maxAttempts.
import { newId } from '@belfry/core';
import { claimRuns, insertScheduledRuns, type QueueClient, queuedMessages } from '@belfry/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expireLeases, insertJob, insertTenant } from '../../../test/fixtures';
import { createLogger } from '../src/logger';
import { Reaper } from '../src/maintenance/reaper';
import { dbNow, createQueueTestDatabase, type QueueTestDatabase } from './support';

const log = createLogger('silent', {});
const RETRY = { maxAttempts: 3, initialDelaySeconds: 60, maxDelaySeconds: 600 };

describe('reaper', () => {
  let db: QueueTestDatabase;
  let queue: QueueClient;
  let reaper: Reaper;
  let tenantId: string;

  beforeAll(async () => {
    db = await createQueueTestDatabase();
    queue = db.boss;
    // The top of the jitter range: each delay is the full backoff, so the test can predict it.
    reaper = new Reaper(db.pool, queue, { intervalMs: 60_000, batchSize: 100, random: () => 1 }, log);
    tenantId = (await insertTenant(db.pool)).id;
  });
  afterAll(async () => {
    await db?.destroy();
  });

  /** A pending run of a job with RETRY, as the scheduler would have written it. */
  const pendingRun = async () => {
    const job = await insertJob(db.pool, tenantId, {
      schedule: { type: 'once', runAt: new Date(Date.now() + 3_600_000) },
      url: 'http://127.0.0.1:9/never-called',
      retry: RETRY,
      partitions: db.partitions,
    });
    const scheduledTime = new Date(Math.floor(Date.now() / 1000) * 1000);
    const [run] = await insertScheduledRuns(db.pool, [
      {
        id: newId('run', scheduledTime),
        tenantId,
        jobId: job.id,
        scheduledTime,
        status: 'pending',
        skipReason: null,
        priority: 'normal',
      },
    ]);
    return run!;
  };

  /** A worker claims the run, then dies: its lease runs out without a heartbeat. */
  const claimAndDie = async (run: { id: string; scheduled_time: Date }, workerId: string) => {
    const [claimed] = await claimRuns(db.pool, workerId, 30_000, [run.id], [run.scheduled_time]);
    expect(claimed?.id).toBe(run.id);
    await expireLeases(db.pool, [run.id]);
    return claimed!;
  };

  const runRow = async (id: string) =>
    (
      await db.pool.query<{ status: string; attempt: number; next_attempt_at: Date | null; finished_at: Date | null }>(
        'SELECT status, attempt, next_attempt_at, finished_at FROM runs WHERE id = $1',
        [id],
      )
    ).rows[0]!;

  it('retries a run whose lease expired with backoff: next attempt in the future, its message deferred to then', async () => {
    const run = await pendingRun();
    await claimAndDie(run, 'worker-a');
    const before = await dbNow(db.pool);

    expect(await reaper.reapOnce()).toBe(1);

    const row = await runRow(run.id);
    expect(row.status).toBe('failed');
    expect(row.finished_at).toBeNull();
    // Attempt 1 failed: the full first backoff (60 s) from the reaper's database clock.
    const delay = (row.next_attempt_at as Date).getTime() - before.getTime();
    expect(delay).toBeGreaterThanOrEqual(60_000 - 1);
    expect(delay).toBeLessThan(61_000);
    const attempts = await db.pool.query('SELECT attempt, status, error FROM run_attempt_history WHERE run_id = $1', [
      run.id,
    ]);
    expect(attempts.rows).toEqual([
      { attempt: 1, status: 'failed', error: 'lease expired: worker worker-a stopped heartbeating' },
    ]);
    const messages = await queuedMessages(db.pool, { runIds: [run.id], waitingOnly: true });
    expect(messages.map((m) => [m.name, m.startAfter.getTime()])).toEqual([
      [`t.${tenantId}.normal`, (row.next_attempt_at as Date).getTime()],
    ]);
    // Nothing else has expired: a second pass takes nothing.
    expect(await reaper.reapOnce()).toBe(0);
  });

  it('a run whose worker dies on every attempt goes dead after maxAttempts, with growing backoff', async () => {
    const run = await pendingRun();
    const delays: number[] = [];
    const queued: number[] = [];
    for (let attempt = 1; attempt <= RETRY.maxAttempts; attempt++) {
      // The retry is due (as if its backoff had passed); a worker claims it and dies.
      await db.pool.query('UPDATE runs SET next_attempt_at = now() WHERE id = $1 AND status = $2', [run.id, 'failed']);
      const claimed = await claimAndDie(run, `worker-${attempt}`);
      expect(claimed.attempt).toBe(attempt);
      const before = await dbNow(db.pool);
      expect(await reaper.reapOnce()).toBe(1);
      const row = await runRow(run.id);
      if (row.next_attempt_at) delays.push(row.next_attempt_at.getTime() - before.getTime());
      queued.push((await queuedMessages(db.pool, { runIds: [run.id] })).length);
    }

    expect(delays.map((d) => Math.round(d / 1000))).toEqual([60, 120]);
    const row = await runRow(run.id);
    expect(row).toMatchObject({ status: 'dead', attempt: RETRY.maxAttempts, next_attempt_at: null });
    expect(row.finished_at).toBeInstanceOf(Date);
    const attempts = await db.pool.query<{ attempt: number; status: string; worker_id: string }>(
      'SELECT attempt, status, worker_id FROM run_attempt_history WHERE run_id = $1 ORDER BY attempt',
      [run.id],
    );
    expect(attempts.rows).toEqual([
      { attempt: 1, status: 'failed', worker_id: 'worker-1' },
      { attempt: 2, status: 'failed', worker_id: 'worker-2' },
      { attempt: 3, status: 'failed', worker_id: 'worker-3' },
    ]);
    // Each lost attempt's row was written by the reaper from the run row: the attempt's own start
    // (a retry's, not the run's first), the last of them still on the run.
    const starts = await db.pool.query<{ attempt: number; started_at: Date; first: Date; last: Date }>(
      `SELECT a.attempt, a.started_at, r.started_at AS first, r.attempt_started_at AS last
         FROM run_attempt_history a JOIN runs r ON r.id = a.run_id AND r.scheduled_time = a.scheduled_time
        WHERE a.run_id = $1 ORDER BY a.attempt`,
      [run.id],
    );
    expect(starts.rows[0]?.started_at).toEqual(starts.rows[0]?.first);
    expect(starts.rows[2]?.started_at).toEqual(starts.rows[2]?.last);
    expect(starts.rows[2]!.started_at.getTime()).toBeGreaterThan(starts.rows[0]!.started_at.getTime());
    // A message for each retry (this test's workers claimed without fetching them), none for the dead end.
    expect(queued).toEqual([1, 2, 2]);
  });
});
