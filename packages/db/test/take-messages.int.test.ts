// takeMessages on real PostgreSQL and pg-boss: it takes what pg-boss's fetch would have (due,
// unblocked messages of the one queue, highest priority then oldest first, up to the limit),
// deletes them in the caller's transaction (a rollback puts them back), and two transactions
// taking at once get disjoint messages. Runs enqueued together share messages (RUNS_PER_MESSAGE);
// the limit counts runs, and a message that does not fit whole is split. A claim's take from
// several queues at once is take-from-queues.int.test.ts.
import { beforeAll, describe, expect, it } from 'vitest';
import type { TestDatabase } from '../../../test/db';
import {
  ensureQueues,
  type QueueClient,
  enqueueRuns,
  pgExecutor,
  queueDepth,
  queuedMessages,
  queueName,
  RUNS_PER_MESSAGE,
  takeMessages,
  withTransaction,
} from '../src/index';
import { OTHER, QUEUE, TENANT, takeFixture } from './take-fixture';

describe('takeMessages', () => {
  const fixture = takeFixture();
  const { due, put } = fixture;
  let db: TestDatabase;
  let boss: QueueClient;
  beforeAll(() => {
    ({ db, boss } = fixture);
  });
  const waiting = () => fixture.left(QUEUE);
  const take = (limit: number) => withTransaction(db.pool, (client) => takeMessages(client, QUEUE, limit));
  /** Takes up to `limit` runs in a claim that then fails; resolves with how many it had taken. */
  const takeThenRollBack = async (limit: number) => {
    let taken = -1;
    await expect(
      withTransaction(
        db.pool,
        async (client) => {
          taken = (await takeMessages(client, QUEUE, limit)).length;
          throw new Error('claim failed');
        },
        { maxTries: 1 },
      ),
    ).rejects.toThrow('claim failed');
    return taken;
  };

  it('takes the due, unblocked messages of its queue only, highest priority then oldest first', async () => {
    await put(QUEUE, ['old']);
    await put(QUEUE, ['new']);
    await put(QUEUE, ['urgent'], { priority: 5 });
    await put(QUEUE, ['later'], { startAfter: new Date(Date.now() + 3_600_000) });
    await put(QUEUE, ['blocked']);
    await db.pool.query(`UPDATE pgboss.job SET blocked = true WHERE name = $1 AND data->>'runId' = 'blocked'`, [QUEUE]);
    await put(OTHER, ['elsewhere']);

    const taken = await take(10);
    expect(taken.map((m) => m.data.runId)).toEqual(['urgent', 'old', 'new']);
    for (const m of taken) {
      expect(m.id).toMatch(/^[0-9a-f-]{36}$/);
      expect(m.retryCount).toBe(0);
      expect(m.data.scheduledTime).toBe(due.toISOString());
    }
    expect(await waiting()).toEqual(['blocked', 'later']);
    expect((await queuedMessages(db.pool)).filter((m) => m.name === OTHER).map((m) => m.runId)).toEqual(['elsewhere']);
    expect(await take(10)).toEqual([]);
  });

  it('takes at most `limit` messages, in order, and leaves the rest', async () => {
    await put(QUEUE, ['a']);
    await put(QUEUE, ['b']);
    await put(QUEUE, ['c']);
    expect((await take(2)).map((m) => m.data.runId)).toEqual(['a', 'b']);
    expect(await waiting()).toEqual(['c']);
  });

  it('puts the messages back when the transaction rolls back', async () => {
    await put(QUEUE, ['a', 'b']);
    expect(await takeThenRollBack(10)).toBe(2);
    expect(await waiting()).toEqual(['a', 'b']);
    expect((await take(10)).map((m) => m.data.runId).sort()).toEqual(['a', 'b']);
  });

  it('gives two transactions taking at once disjoint messages (SKIP LOCKED)', async () => {
    await put(QUEUE, ['m1', 'm2', 'm3', 'm4', 'm5']);
    const first = await db.pool.connect();
    const second = await db.pool.connect();
    try {
      await first.query('BEGIN');
      await second.query('BEGIN');
      const a = await takeMessages(first, QUEUE, 2);
      // The first transaction holds its two messages: the second skips them rather than waiting.
      const b = await takeMessages(second, QUEUE, 10);
      // (One insert: the five tie on created_on, so which two come first is pg-boss's index order.)
      expect(a).toHaveLength(2);
      expect(b).toHaveLength(3);
      expect([...a, ...b].map((m) => m.data.runId).sort()).toEqual(['m1', 'm2', 'm3', 'm4', 'm5']);
      await first.query('COMMIT');
      await second.query('COMMIT');
    } finally {
      first.release();
      second.release();
    }
    expect(await waiting()).toEqual([]);
  });

  it('skips messages an open transaction took, and takes them once it rolls back', async () => {
    await put(QUEUE, ['m1', 'm2']);
    const first = await db.pool.connect();
    try {
      await first.query('BEGIN');
      expect(await takeMessages(first, QUEUE, 10)).toHaveLength(2);
      expect(await take(10)).toEqual([]);
      await first.query('ROLLBACK');
    } finally {
      first.release();
    }
    expect((await take(10)).map((m) => m.data.runId).sort()).toEqual(['m1', 'm2']);
  });

  it('gives a claimer its messages while four others hold the first ones (engine and pull queues)', async () => {
    const PULL = queueName({ lane: 'pull', tenantId: TENANT, queue: 'reports' });
    await ensureQueues(boss, [PULL]);
    await db.pool.query(`DELETE FROM pgboss.job WHERE name = $1`, [PULL]);
    for (const queue of [QUEUE, PULL]) {
      for (let i = 0; i < 10; i++) await put(queue, [`m${i}`]);
      const holders = await Promise.all(Array.from({ length: 4 }, () => db.pool.connect()));
      try {
        const held: string[] = [];
        for (const h of holders) {
          await h.query('BEGIN');
          held.push(...(await takeMessages(h, queue, 1)).map((m) => m.data.runId));
        }
        expect(held).toEqual(['m0', 'm1', 'm2', 'm3']);
        const fifth = await withTransaction(db.pool, (client) => takeMessages(client, queue, 1));
        expect(fifth.map((m) => m.data.runId)).toEqual(['m4']);
      } finally {
        for (const h of holders) {
          await h.query('ROLLBACK');
          h.release();
        }
      }
      await db.pool.query(`DELETE FROM pgboss.job WHERE name = $1`, [queue]);
    }
  });

  describe('runs that share a message', () => {
    const enqueue = (runIds: string[], o: { scheduledTime?: Date; startAfter?: Date; overlap?: boolean } = {}) =>
      withTransaction(db.pool, (client) =>
        enqueueRuns(
          boss,
          pgExecutor(client),
          runIds.map((runId) => ({
            runId,
            route: { lane: 'push' as const, tenantId: TENANT, priority: 'normal' as const },
            scheduledTime: o.scheduledTime ?? due,
            ...(o.startAfter ? { startAfter: o.startAfter } : {}),
            ...(o.overlap ? { overlapSkip: true } : {}),
          })),
        ),
      );
    const rows = async () =>
      (
        await db.pool.query<{ data: Record<string, unknown> }>(
          `SELECT data FROM pgboss.job WHERE name = $1 ORDER BY created_on, jsonb_array_length(data->'runIds') DESC NULLS LAST`,
          [QUEUE],
        )
      ).rows.map((r) => r.data);
    const ids = (n: number, prefix = 'r') =>
      Array.from({ length: n }, (_, i) => `${prefix}${String(i).padStart(3, '0')}`);

    it('puts runs due together in one message, RUNS_PER_MESSAGE at most, and keeps different times apart', async () => {
      const later = new Date(due.getTime() + 1_000);
      await enqueue(ids(RUNS_PER_MESSAGE + 3));
      await enqueue(['late'], { scheduledTime: later });
      await enqueue(['o1', 'o2'], { overlap: true });
      const stored = await rows();
      const batches = stored.filter((d) => Array.isArray(d.runIds));
      expect(batches.map((d) => (d.runIds as string[]).length).sort((a, b) => b - a)).toEqual([RUNS_PER_MESSAGE, 3, 2]);
      expect(batches.find((d) => (d.runIds as string[]).includes('o1'))).toEqual({
        runIds: ['o1', 'o2'],
        scheduledTime: due.toISOString(),
        overlap: true,
      });
      // A lone run keeps the one-run shape (as retries, run-now and older versions write it).
      expect(stored).toContainEqual({ runId: 'late', scheduledTime: later.toISOString() });
      expect((await queuedMessages(db.pool)).filter((m) => m.name === QUEUE)).toHaveLength(RUNS_PER_MESSAGE + 6);
      const normal = (await queueDepth(db.pool, TENANT)).find((d) => d.priority === 'normal');
      expect(normal).toMatchObject({
        total: RUNS_PER_MESSAGE + 6,
        tenant: RUNS_PER_MESSAGE + 6,
        tenantDue: RUNS_PER_MESSAGE + 6,
      });
    });

    it('counts the limit in runs and leaves the rest of a message queued, first in line', async () => {
      await enqueue(ids(10, 'a'));
      await enqueue(['b']);
      const first = await take(4);
      expect(first.map((m) => m.data.runId)).toEqual(ids(4, 'a'));
      expect(new Set(first.map((m) => m.id)).size).toBe(1);
      expect(await waiting()).toEqual([...ids(10, 'a').slice(4), 'b']);
      // Whole messages and part of the next: six from the rest of the first, then b.
      expect((await take(7)).map((m) => m.data.runId)).toEqual([...ids(10, 'a').slice(4), 'b']);
      expect(await rows()).toEqual([]);
    });

    it('takes a message in part inside the transaction only: a rollback restores all its runs', async () => {
      await enqueue(ids(5));
      expect(await takeThenRollBack(2)).toBe(2);
      expect(await waiting()).toEqual(ids(5));
    });

    it('hands out every run of a batch once to claimers taking small bites at once', async () => {
      await enqueue(ids(RUNS_PER_MESSAGE));
      await enqueue(ids(RUNS_PER_MESSAGE, 's'));
      const got: string[] = [];
      await Promise.all(
        Array.from({ length: 6 }, async () => {
          for (;;) {
            const taken = await take(7);
            if (!taken.length) return;
            got.push(...taken.map((m) => m.data.runId));
          }
        }),
      );
      expect(got.sort()).toEqual([...ids(RUNS_PER_MESSAGE), ...ids(RUNS_PER_MESSAGE, 's')].sort());
    });

    it('locks only the messages it takes from: a claimer at the same time takes from the next one', async () => {
      const second = new Date(due.getTime() + 1_000);
      await enqueue(ids(RUNS_PER_MESSAGE, 'a'));
      await enqueue(ids(RUNS_PER_MESSAGE, 'b'), { scheduledTime: second });
      const first = await db.pool.connect();
      const other = await db.pool.connect();
      try {
        await first.query('BEGIN');
        await other.query('BEGIN');
        const a = await takeMessages(first, QUEUE, 10);
        const b = await takeMessages(other, QUEUE, 10);
        expect(a.map((m) => m.data.runId)).toEqual(ids(10, 'a'));
        expect(b.map((m) => m.data.runId)).toEqual(ids(10, 'b'));
        await first.query('COMMIT');
        await other.query('COMMIT');
      } finally {
        first.release();
        other.release();
      }
      expect(await waiting()).toEqual([
        ...ids(RUNS_PER_MESSAGE, 'a').slice(10),
        ...ids(RUNS_PER_MESSAGE, 'b').slice(10),
      ]);
    });

    it('looks past messages another claimer holds to fill its room', async () => {
      await enqueue(['a1', 'a2'], { scheduledTime: due });
      await enqueue(['b1', 'b2'], { scheduledTime: new Date(due.getTime() + 1_000) });
      await enqueue(['c1', 'c2'], { scheduledTime: new Date(due.getTime() + 2_000) });
      const first = await db.pool.connect();
      try {
        await first.query('BEGIN');
        expect((await takeMessages(first, QUEUE, 2)).map((m) => m.data.runId)).toEqual(['a1', 'a2']);
        // a's message is held (deleted, uncommitted): the next claimer skips it and takes b and c.
        expect((await take(4)).map((m) => m.data.runId)).toEqual(['b1', 'b2', 'c1', 'c2']);
        await first.query('ROLLBACK');
      } finally {
        first.release();
      }
      expect(await waiting()).toEqual(['a1', 'a2']);
    });

    it('hands out the runs of one enqueue earliest start first', async () => {
      const later = new Date(due.getTime() + 1_000);
      await withTransaction(db.pool, (client) =>
        enqueueRuns(
          boss,
          pgExecutor(client),
          [
            ...ids(30, 'l').map((runId) => ({ runId, t: later })),
            ...ids(30, 'e').map((runId) => ({ runId, t: due })),
          ].map(({ runId, t }) => ({
            runId,
            route: { lane: 'push' as const, tenantId: TENANT, priority: 'normal' as const },
            scheduledTime: t,
          })),
        ),
      );
      expect((await take(40)).map((m) => m.data.runId)).toEqual([...ids(30, 'e'), ...ids(10, 'l')]);
    });

    it('carries the overlap flag to each run it hands out', async () => {
      await enqueue(['o1', 'o2', 'o3'], { overlap: true });
      const taken = await take(2);
      expect(taken.map((m) => m.data)).toEqual([
        { runId: 'o1', scheduledTime: due.toISOString(), overlap: true },
        { runId: 'o2', scheduledTime: due.toISOString(), overlap: true },
      ]);
      expect((await take(5)).map((m) => m.data)).toEqual([
        { runId: 'o3', scheduledTime: due.toISOString(), overlap: true },
      ]);
    });
  });
});
