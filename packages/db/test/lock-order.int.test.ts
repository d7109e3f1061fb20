// The worker's heartbeat (extendRunLeases) and its start check (confirmRunStarts) lock the same
// runs — those it holds, claimed ahead and not yet started — and must lock them in one order,
// key order, whatever scan the planner picks: in the bench's knee at 2,250/s the two deadlocked
// (a bitmap scan's heap order against an index scan's), each deadlock held both for
// deadlock_timeout, and the start check's failure failed 773 attempts at once.
//
// Here the runs are inserted in the reverse of their key order, index scans are off (a bitmap
// scan visits them where they were inserted: the claim's updates are heap-only and keep their
// place), and another transaction holds the run last in key order: a statement
// that locks in key order then waits there holding every other run; one that locks in scan
// order waits at once, holding none.
import { newId } from '@belfry/core';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../test/db';
import { insertJob, insertTenant } from '../../../test/fixtures';
import { claimRuns, confirmRunStarts, extendRunLeases, insertScheduledRuns } from '../src/index';

const WORKER = 'worker-lock-order';

describe('runs a worker holds are locked in key order', () => {
  let db: TestDatabase;
  /** claimed by WORKER, in key order (they were inserted in the reverse order) */
  let runs: { id: string; scheduledTime: Date; attempt: number }[];

  beforeAll(async () => {
    db = await createTestDatabase();
    const tenantId = (await insertTenant(db.pool)).id;
    const job = await insertJob(db.pool, tenantId, {
      schedule: { type: 'cron', expression: '0 0 1 1 *', timezone: 'UTC' },
      url: 'http://127.0.0.1:9/hook',
      partitions: db.partitions,
    });
    const base = Math.floor(Date.now() / 1000) * 1000 + 60_000;
    const planned = Array.from({ length: 8 }, (_, i) => {
      const scheduledTime = new Date(base + i);
      return { id: newId('run', scheduledTime), scheduledTime };
    }).sort((a, b) => (a.id < b.id ? 1 : -1));
    await insertScheduledRuns(
      db.pool,
      planned.map((r) => ({
        id: r.id,
        tenantId,
        jobId: job.id,
        scheduledTime: r.scheduledTime,
        status: 'pending' as const,
        skipReason: null,
        priority: 'normal' as const,
      })),
    );
    const claimed = await claimRuns(
      db.pool,
      WORKER,
      30_000,
      planned.map((r) => r.id),
      planned.map((r) => r.scheduledTime),
    );
    expect(claimed).toHaveLength(8);
    runs = planned.map((r) => ({ ...r, attempt: 1 })).sort((a, b) => (a.id < b.id ? -1 : 1));
  });
  afterAll(() => db?.destroy());

  /** Runs `statement` on a session that scans in heap order while another holds the last run; answers which other runs it held meanwhile. */
  async function heldWhileWaiting(
    holderLock: 'FOR SHARE' | 'FOR NO KEY UPDATE',
    probeLock: 'FOR SHARE' | 'FOR UPDATE',
    statement: (session: pg.ClientBase) => Promise<unknown>,
  ): Promise<string[]> {
    const last = runs.at(-1)!;
    const holder = await db.pool.connect();
    const session = await db.pool.connect();
    try {
      await holder.query('BEGIN');
      await holder.query(`SELECT 1 FROM runs WHERE id = $1 ${holderLock}`, [last.id]);
      await session.query('SET enable_indexscan = off');
      await session.query('SET enable_indexonlyscan = off');
      const { rows } = await session.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      const done = statement(session);
      // wait until the statement waits for the holder
      const holderPid = (await holder.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
      for (;;) {
        const waiting = await db.pool.query(
          `SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND wait_event_type = 'Lock' AND $2 = ANY(pg_blocking_pids(pid))`,
          [rows[0]!.pid, holderPid],
        );
        if (waiting.rowCount) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      const held: string[] = [];
      for (const r of runs.slice(0, -1)) {
        const probe = await db.pool.connect();
        try {
          await probe.query('BEGIN');
          await probe.query(`SELECT 1 FROM runs WHERE id = $1 ${probeLock} NOWAIT`, [r.id]);
        } catch (err) {
          if ((err as { code?: string }).code !== '55P03') throw err; // lock_not_available
          held.push(r.id);
        } finally {
          await probe.query('ROLLBACK');
          probe.release();
        }
      }
      await holder.query('COMMIT');
      await done;
      return held;
    } finally {
      await session.query('RESET ALL').catch(() => {});
      holder.release();
      session.release();
    }
  }

  it('the heartbeat locks them in key order', async () => {
    const held = await heldWhileWaiting('FOR SHARE', 'FOR SHARE', (session) =>
      extendRunLeases(session, WORKER, 30_000, runs),
    );
    expect(held).toEqual(runs.slice(0, -1).map((r) => r.id));
  });

  it('the start check locks them in key order', async () => {
    const held = await heldWhileWaiting('FOR NO KEY UPDATE', 'FOR UPDATE', (session) =>
      confirmRunStarts(session, WORKER, runs),
    );
    expect(held).toEqual(runs.slice(0, -1).map((r) => r.id));
  });
});
