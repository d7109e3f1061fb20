// The meeting point of a pause (or delete) and a worker holding a run claimed ahead of its
// time, on real PostgreSQL with concurrent sessions: whoever reaches the run's row first
// decides, and the other sees the decision (see src/sql/cancel-claimed-ahead.ts).
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../test/db';
import { insertClaimedAheadRun, insertTenant } from '../../../test/fixtures';
import { cancelClaimedAheadRuns, confirmRunStarts, START_COMMIT_MS } from '../src/index';

const WORKER = 'worker-a';

describe('cancelling a run claimed ahead vs its worker starting it', () => {
  let db: TestDatabase;
  let tenantId: string;
  beforeAll(async () => {
    db = await createTestDatabase();
    tenantId = (await insertTenant(db.pool)).id;
  });
  afterAll(() => db.destroy());

  const dbNow = async () =>
    Number((await db.pool.query(`SELECT (extract(epoch FROM now()) * 1000)::float8 AS ms`)).rows[0].ms);

  /** A job with one scheduled run that WORKER claimed ahead: running, due `inMs` from now. */
  async function claimedAhead(inMs: number) {
    const at = new Date(Math.floor(await dbNow()) + inMs);
    const { jobId, runId } = await insertClaimedAheadRun(db.pool, tenantId, {
      at,
      workerId: WORKER,
      partitions: db.partitions,
    });
    return { jobId, run: { id: runId, scheduledTime: at, attempt: 1 } };
  }

  async function session(): Promise<pg.PoolClient> {
    const c = await db.pool.connect();
    await c.query('BEGIN');
    return c;
  }

  /** Resolves once some session of this database waits for a row lock held by `holder`. */
  async function lockWaitBehind(holder: pg.PoolClient): Promise<void> {
    const { rows } = await holder.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    for (;;) {
      const waiting = await db.pool.query(
        `SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'
            AND $1 = ANY(pg_blocking_pids(pid))`,
        [rows[0]?.pid],
      );
      if (waiting.rowCount) return;
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  const statusOf = async (id: string) =>
    (await db.pool.query('SELECT status FROM runs WHERE id = $1', [id])).rows[0]?.status as string;

  it('before its time the worker holds it but must wait; a cancel then takes it, and the worker is told', async () => {
    const { jobId, run } = await claimedAhead(60_000);
    const early = await confirmRunStarts(db.pool, WORKER, [run]);
    expect(early.held.get(run.id)).toEqual({ committed: false });
    expect(early.dbNowMs).toBeLessThan(run.scheduledTime.getTime());
    expect(await confirmRunStarts(db.pool, 'another-worker', [run])).toMatchObject({ held: new Map() });

    const listener = await db.pool.connect();
    const heard: string[] = [];
    listener.on('notification', (n) => heard.push(String(n.payload)));
    await listener.query('LISTEN belfry_cancel');
    try {
      const canceller = await session();
      const cancelledAt = new Date();
      expect(await cancelClaimedAheadRuns(canceller, tenantId, jobId, cancelledAt)).toEqual([run.id]);
      // The worker's check waits for the canceller's decision, then finds the run gone.
      const check = confirmRunStarts(db.pool, WORKER, [run]);
      await lockWaitBehind(canceller);
      await canceller.query('COMMIT');
      canceller.release();
      expect((await check).held.size).toBe(0);
      expect(await statusOf(run.id)).toBe('cancelled');
      // The attempt's one row, written by the cancel from the run row; it would have started when
      // due, after the cancel: it starts (and ends) at the cancel, never after its end.
      const attempt = await db.pool.query(
        'SELECT attempt, status, error, worker_id, started_at FROM run_attempt_history WHERE run_id = $1',
        [run.id],
      );
      expect(attempt.rows).toEqual([
        {
          attempt: 1,
          status: 'cancelled',
          error: 'cancelled before it started',
          worker_id: WORKER,
          started_at: cancelledAt,
        },
      ]);
      while (!heard.includes(run.id)) await new Promise((r) => setTimeout(r, 20));
    } finally {
      await listener.query('UNLISTEN *');
      listener.release();
    }
  });

  it('a canceller that reaches the row only after the commit point leaves the run to its worker', async () => {
    const { jobId, run } = await claimedAhead(1_000);
    // A worker's start check in flight at the scheduled time holds the row (FOR SHARE).
    const worker = await session();
    await worker.query('SELECT id FROM runs WHERE id = $1 AND scheduled_time = $2 FOR SHARE', [
      run.id,
      run.scheduledTime,
    ]);
    const canceller = await session();
    const cancelling = cancelClaimedAheadRuns(canceller, tenantId, jobId, new Date());
    await lockWaitBehind(worker);
    // The canceller chose the row while it was still ahead of its time; the time passes.
    while ((await dbNow()) <= run.scheduledTime.getTime() + 50) await new Promise((r) => setTimeout(r, 50));
    await worker.query('COMMIT');
    worker.release();
    expect(await cancelling).toEqual([]);
    await canceller.query('COMMIT');
    canceller.release();
    expect(await statusOf(run.id)).toBe('running');
    expect((await confirmRunStarts(db.pool, WORKER, [run])).held.get(run.id)).toEqual({ committed: true });
  });

  it('within START_COMMIT_MS of its due time the start is settled: the worker may go, a pause leaves it', async () => {
    // Due in less than the commit window: its commit point has passed by the first statement.
    const { jobId, run } = await claimedAhead(Math.floor(START_COMMIT_MS / 2));
    const check = await confirmRunStarts(db.pool, WORKER, [run]);
    expect(check.held.get(run.id)).toEqual({ committed: true });
    // Not due yet by the clock of the answer: the worker waits the rest before it calls.
    expect(check.dbNowMs).toBeGreaterThanOrEqual(run.scheduledTime.getTime() - START_COMMIT_MS);
    const canceller = await session();
    expect(await cancelClaimedAheadRuns(canceller, tenantId, jobId, new Date())).toEqual([]);
    await canceller.query('COMMIT');
    canceller.release();
    expect(await statusOf(run.id)).toBe('running');
  });
});
