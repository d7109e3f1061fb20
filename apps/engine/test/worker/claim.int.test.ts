// Take-and-claim on its own, on real PostgreSQL and pg-boss: due messages become runs leased to
// this worker with an attempt opened, in one transaction that also deletes the messages; a
// message whose run is no longer claimable is dropped; overlap-skip runs are recorded skipped.
import { claimRuns, type QueueClient, queuedMessages, queueName } from '@belfry/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertJob, insertTenant } from '../../../../test/fixtures';
import { type ClaimDeps, claimFromQueues } from '../../src/worker/claim';
import { dbNow, queueRuns, createQueueTestDatabase, type QueueTestDatabase } from '../support';

const URL = 'http://127.0.0.1:9/never-called';

/** claimFromQueues for one queue. */
async function claimFromQueue(deps: ClaimDeps, queue: string, room: number) {
  const { fetched, claimed, skipped } = await claimFromQueues(deps, [{ queue, room }]);
  return { fetched: fetched[0] ?? 0, claimed, skipped };
}

describe('claimFromQueues', () => {
  let db: QueueTestDatabase;
  let boss: QueueClient;
  let deps: ClaimDeps;
  let tenantId: string;
  let queue: string;

  beforeAll(async () => {
    db = await createQueueTestDatabase();
    boss = db.boss;
    deps = { pool: db.pool, workerId: 'claim-test', runLeaseMs: 30_000 };
    tenantId = (await insertTenant(db.pool)).id;
    queue = queueName({ lane: 'push', tenantId, priority: 'normal' });
  });
  afterAll(async () => {
    await db?.destroy();
  });

  const job = (overlapPolicy: 'allow' | 'skip' = 'allow') =>
    insertJob(db.pool, tenantId, {
      schedule: { type: 'once', runAt: new Date(Date.now() + 3_600_000) },
      url: URL,
      overlapPolicy,
      partitions: db.partitions,
    });
  const secondsAgo = (s: number) => new Date(Math.floor(Date.now() / 1000) * 1000 - s * 1000);

  it('claims up to `room` due runs under a lease, opens their attempts and deletes their messages', async () => {
    const { id: jobId } = await job();
    const runs = await queueRuns(db.pool, boss, {
      tenantId,
      jobId,
      times: [secondsAgo(3), secondsAgo(2), secondsAgo(1)],
    });
    const before = await dbNow(db.pool);

    const first = await claimFromQueue(deps, queue, 2);
    expect(first.fetched).toBe(2);
    expect(first.skipped).toBe(0);
    expect(first.claimed.map((r) => r.id).sort()).toEqual(
      runs
        .slice(0, 2)
        .map((r) => r.id)
        .sort(),
    );
    for (const r of first.claimed) {
      expect(r).toMatchObject({ attempt: 1, tenant_id: tenantId, job_id: jobId, target: { type: 'http', url: URL } });
    }
    const rows = await db.pool.query<{ id: string; status: string; worker_id: string; lease_expires_at: Date }>(
      'SELECT id, status, worker_id, lease_expires_at FROM runs WHERE job_id = $1 ORDER BY scheduled_time',
      [jobId],
    );
    expect(rows.rows.map((r) => r.status)).toEqual(['running', 'running', 'pending']);
    for (const r of rows.rows.slice(0, 2)) {
      expect(r.worker_id).toBe('claim-test');
      expect(r.lease_expires_at.getTime() - before.getTime()).toBeGreaterThan(29_000);
    }
    // The attempt in progress lives on the run row; its attempt row is written when it ends.
    const attempts = await db.pool.query('SELECT status, worker_id FROM run_attempt_history WHERE job_id = $1', [
      jobId,
    ]);
    expect(attempts.rows).toEqual([]);
    const started = await db.pool.query<{ attempt_started_at: Date; due: Date }>(
      `SELECT attempt_started_at, COALESCE(due_at, scheduled_time) AS due FROM runs WHERE job_id = $1 AND status = 'running'`,
      [jobId],
    );
    expect(started.rows).toHaveLength(2);
    for (const r of started.rows) expect(r.attempt_started_at.getTime()).toBeGreaterThanOrEqual(r.due.getTime());
    const left = await queuedMessages(db.pool, { jobId });
    expect(left.map((m) => m.runId)).toEqual([runs[2]?.id]);

    // The rest: fewer than asked means the queue is drained for now.
    const second = await claimFromQueue(deps, queue, 5);
    expect(second).toMatchObject({ fetched: 1, skipped: 0 });
    expect(second.claimed.map((r) => r.id)).toEqual([runs[2]?.id]);
    expect(await claimFromQueue(deps, queue, 5)).toEqual({ fetched: 0, claimed: [], skipped: 0 });
  });

  it('takes from several queues in one transaction, each within its own room', async () => {
    const { id: jobId } = await job();
    const other = (await insertTenant(db.pool)).id;
    const { id: otherJob } = await insertJob(db.pool, other, {
      schedule: { type: 'once', runAt: new Date(Date.now() + 3_600_000) },
      url: URL,
      partitions: db.partitions,
    });
    const mine = await queueRuns(db.pool, boss, {
      tenantId,
      jobId,
      times: [secondsAgo(3), secondsAgo(2), secondsAgo(1)],
    });
    const theirs = await queueRuns(db.pool, boss, {
      tenantId: other,
      jobId: otherJob,
      times: [secondsAgo(2), secondsAgo(1)],
    });

    const result = await claimFromQueues(deps, [
      { queue, room: 2 },
      { queue: queueName({ lane: 'push', tenantId: other, priority: 'normal' }), room: 5 },
      { queue: queueName({ lane: 'push', tenantId: other, priority: 'high' }), room: 5 },
    ]);
    expect(result.fetched).toEqual([2, 2, 0]);
    expect(result.claimed.map((r) => r.id).sort()).toEqual(
      [mine[0]!.id, mine[1]!.id, theirs[0]!.id, theirs[1]!.id].sort(),
    );
    // One transaction: every lease counts from the same now().
    const leases = await db.pool.query<{ lease_expires_at: Date }>(
      'SELECT DISTINCT lease_expires_at FROM runs WHERE id = ANY($1)',
      [result.claimed.map((r) => r.id)],
    );
    expect(leases.rows).toHaveLength(1);
    // The first queue keeps what did not fit its room; the other's messages are gone.
    expect((await queuedMessages(db.pool, { jobId })).map((m) => m.runId)).toEqual([mine[2]!.id]);
    expect(await queuedMessages(db.pool, { jobId: otherJob })).toEqual([]);
    expect((await claimFromQueue(deps, queue, 5)).claimed.map((r) => r.id)).toEqual([mine[2]!.id]);
  });

  it('takes nothing before its time', async () => {
    const { id: jobId } = await job();
    await queueRuns(db.pool, boss, { tenantId, jobId, times: [new Date(Date.now() + 60_000)] });
    expect(await claimFromQueue(deps, queue, 5)).toEqual({ fetched: 0, claimed: [], skipped: 0 });
    expect(await queuedMessages(db.pool, { jobId })).toHaveLength(1);
  });

  it('drops the message of a run that is no longer claimable (cancelled while queued)', async () => {
    const { id: jobId } = await job();
    const [run] = await queueRuns(db.pool, boss, { tenantId, jobId, times: [secondsAgo(1)] });
    await db.pool.query(`UPDATE runs SET status = 'cancelled' WHERE id = $1`, [run?.id]);
    expect(await claimFromQueue(deps, queue, 5)).toEqual({ fetched: 1, claimed: [], skipped: 0 });
    expect(await queuedMessages(db.pool, { jobId })).toEqual([]);
    const rows = await db.pool.query('SELECT status, attempt FROM runs WHERE id = $1', [run?.id]);
    expect(rows.rows).toEqual([{ status: 'cancelled', attempt: 0 }]);
  });

  it('records an overlap-skip run as skipped while the job has a run in progress', async () => {
    const { id: jobId } = await job('skip');
    const [running] = await queueRuns(db.pool, boss, { tenantId, jobId, times: [secondsAgo(10)], overlapSkip: true });
    await claimRuns(db.pool, 'someone-else', 30_000, [running!.id], [running!.scheduled_time]);
    const [next] = await queueRuns(db.pool, boss, { tenantId, jobId, times: [secondsAgo(1)], overlapSkip: true });

    const result = await claimFromQueue(deps, queue, 5);
    expect(result).toMatchObject({ claimed: [], skipped: 1 });
    expect(result.fetched).toBeGreaterThanOrEqual(1);
    const rows = await db.pool.query('SELECT status, skip_reason FROM runs WHERE id = $1', [next?.id]);
    expect(rows.rows).toEqual([{ status: 'skipped', skip_reason: 'overlap' }]);
  });
});
