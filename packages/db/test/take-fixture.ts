// What the take tests share (take-messages, take-from-queues): a test database with pg-boss's
// schema and a queue client, its queues emptied before each test, and helpers that put
// messages on a queue and list the runs still waiting on one.
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../test/db';
import {
  createQueueClient,
  ensureQueues,
  type QueueClient,
  queuedMessages,
  queueName,
  type RunMessage,
} from '../src/index';

export const TENANT = 'ten_take_test';
export const QUEUE = queueName({ lane: 'push', tenantId: TENANT, priority: 'normal' });
export const OTHER = queueName({ lane: 'push', tenantId: TENANT, priority: 'high' });

export interface TakeFixture {
  db: TestDatabase;
  boss: QueueClient;
  /** the scheduled time (and default start) of every message put: a minute ago */
  due: Date;
  /** One insert per call, so each call's messages are created after the previous call's. */
  put(queue: string, runIds: string[], options?: { startAfter?: Date; priority?: number }): Promise<void>;
  /** the run ids still waiting on `queue` (sorted) */
  left(queue: string): Promise<string[]>;
}

/** Registers the hooks (call it at the top of a describe) for QUEUE, OTHER and `more`. */
export function takeFixture(more: string[] = []): TakeFixture {
  const queues = [QUEUE, OTHER, ...more];
  const due = new Date(Date.now() - 60_000);
  const fixture: TakeFixture = {
    db: undefined as unknown as TestDatabase,
    boss: undefined as unknown as QueueClient,
    due,
    put: async (queue, runIds, options = {}) => {
      await fixture.boss.insert(
        queue,
        runIds.map((runId) => ({
          data: { runId, scheduledTime: due.toISOString() } satisfies RunMessage,
          startAfter: options.startAfter ?? due,
          priority: options.priority ?? 0,
        })),
      );
    },
    left: async (queue) =>
      (await queuedMessages(fixture.db.pool, { waitingOnly: true }))
        .filter((m) => m.name === queue)
        .map((m) => m.runId)
        .sort(),
  };
  beforeAll(async () => {
    fixture.db = await createTestDatabase();
    fixture.boss = await createQueueClient(fixture.db.url, { max: 2 });
    await ensureQueues(fixture.boss, queues);
  });
  afterAll(async () => {
    await fixture.boss?.stop({ graceful: false, close: true });
    await fixture.db?.destroy();
  });
  beforeEach(async () => {
    await fixture.db.pool.query(`DELETE FROM pgboss.job WHERE name = ANY($1)`, [queues]);
  });
  return fixture;
}
