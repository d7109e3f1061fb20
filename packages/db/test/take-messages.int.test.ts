// takeMessages on real PostgreSQL and pg-boss: it takes what pg-boss's fetch would have (due,
// unblocked messages of the one queue, highest priority then oldest first, up to the limit),
// deletes them in the caller's transaction (a rollback puts them back), and two transactions
// taking at once get disjoint messages.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../test/db';
import {
  createQueueClient,
  ensureQueues,
  type QueueClient,
  queuedMessages,
  queueName,
  type RunMessage,
  takeMessages,
  withTransaction,
} from '../src/index';

const TENANT = 'ten_take_test';
const QUEUE = queueName({ lane: 'push', tenantId: TENANT, priority: 'normal' });
const OTHER = queueName({ lane: 'push', tenantId: TENANT, priority: 'high' });

describe('takeMessages', () => {
  let db: TestDatabase;
  let boss: QueueClient;

  beforeAll(async () => {
    db = await createTestDatabase();
    boss = await createQueueClient(db.url, { max: 2 });
    await ensureQueues(boss, [QUEUE, OTHER]);
  });
  afterAll(async () => {
    await boss?.stop({ graceful: false, close: true });
    await db?.destroy();
  });
  beforeEach(async () => {
    await db.pool.query(`DELETE FROM pgboss.job WHERE name = ANY($1)`, [[QUEUE, OTHER]]);
  });

  const due = new Date(Date.now() - 60_000);
  /** One insert per call, so each call's messages are created after the previous call's. */
  const put = async (queue: string, runIds: string[], options: { startAfter?: Date; priority?: number } = {}) => {
    await boss.insert(
      queue,
      runIds.map((runId) => ({
        data: { runId, scheduledTime: due.toISOString() } satisfies RunMessage,
        startAfter: options.startAfter ?? due,
        priority: options.priority ?? 0,
      })),
    );
  };
  const waiting = async () =>
    (await queuedMessages(db.pool, { waitingOnly: true }))
      .filter((m) => m.name === QUEUE)
      .map((m) => m.runId)
      .sort();
  const take = (limit: number) => withTransaction(db.pool, (client) => takeMessages(client, QUEUE, limit));

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
    await expect(
      withTransaction(
        db.pool,
        async (client) => {
          expect(await takeMessages(client, QUEUE, 10)).toHaveLength(2);
          throw new Error('claim failed');
        },
        { maxTries: 1 },
      ),
    ).rejects.toThrow('claim failed');
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
});
