// takeFromQueues on real PostgreSQL and pg-boss: a claim's take from several queues at once
// (belfry_take_many, migration 20261207150000) gives each queue what takeMessages alone would
// (take-messages.int.test.ts), in its own order and room; a rollback puts every queue's
// messages back, a queue whose first messages another claimer holds is looked past in a later
// round while the others are taken, and claimers taking from the same queues at once hand out
// every run once.
import { beforeAll, describe, expect, it } from 'vitest';
import type { TestDatabase } from '../../../test/db';
import {
  enqueueRuns,
  pgExecutor,
  type QueueClient,
  queueName,
  RUNS_PER_MESSAGE,
  type RunMessage,
  takeFromQueues,
  takeMessages,
  withTransaction,
} from '../src/index';
import { OTHER, QUEUE, TENANT, takeFixture } from './take-fixture';

describe('takeFromQueues', () => {
  const THIRD = queueName({ lane: 'push', tenantId: 'ten_take_other', priority: 'normal' });
  const PULL = queueName({ lane: 'pull', tenantId: TENANT, queue: 'several' });
  const fixture = takeFixture([THIRD, PULL]);
  const { due, put, left } = fixture;
  let db: TestDatabase;
  let boss: QueueClient;
  beforeAll(() => {
    ({ db, boss } = fixture);
  });
  const enqueue = (tenantId: string, priority: 'normal' | 'high', runIds: string[]) =>
    withTransaction(db.pool, (client) =>
      enqueueRuns(
        boss,
        pgExecutor(client),
        runIds.map((runId) => ({ runId, route: { lane: 'push' as const, tenantId, priority }, scheduledTime: due })),
      ),
    );
  const runIdsOf = (lists: { data: RunMessage }[][]) => lists.map((l) => l.map((m) => m.data.runId));

  it('gives each queue its own runs in its own order and room, in the order the queues were given', async () => {
    await put(QUEUE, ['q-old']);
    await put(QUEUE, ['q-new']);
    await put(QUEUE, ['q-urgent'], { priority: 5 });
    await enqueue(TENANT, 'high', ['h1', 'h2', 'h3', 'h4', 'h5']);
    await enqueue('ten_take_other', 'normal', ['t1', 't2']);
    await put(PULL, ['p1']);
    await put(PULL, ['p2']);
    const taken = await withTransaction(db.pool, (client) =>
      takeFromQueues(client, [
        { queue: THIRD, room: 10 },
        { queue: OTHER, room: 3 },
        { queue: PULL, room: 1 },
        { queue: QUEUE, room: 2 },
      ]),
    );
    expect(runIdsOf(taken)).toEqual([['t1', 't2'], ['h1', 'h2', 'h3'], ['p1'], ['q-urgent', 'q-old']]);
    // the high queue's one message was split: its last runs stay queued, and so does the rest
    expect(await left(OTHER)).toEqual(['h4', 'h5']);
    expect(await left(QUEUE)).toEqual(['q-new']);
    expect(await left(PULL)).toEqual(['p2']);
    expect(await left(THIRD)).toEqual([]);
  });

  it('gives a queue with nothing due, or no room, nothing, and the others theirs', async () => {
    await enqueue('ten_take_other', 'normal', ['t1']);
    await put(QUEUE, ['later'], { startAfter: new Date(Date.now() + 3_600_000) });
    await put(OTHER, ['o1']);
    const taken = await withTransaction(db.pool, (client) =>
      takeFromQueues(client, [
        { queue: QUEUE, room: 5 },
        { queue: OTHER, room: 0 },
        { queue: THIRD, room: 5 },
      ]),
    );
    expect(runIdsOf(taken)).toEqual([[], [], ['t1']]);
    expect(await left(OTHER)).toEqual(['o1']);
  });

  it("puts every queue's messages back when the transaction rolls back", async () => {
    await enqueue(TENANT, 'normal', ['a1', 'a2', 'a3']);
    await enqueue('ten_take_other', 'normal', ['t1', 't2']);
    let taken: string[][] = [];
    await expect(
      withTransaction(
        db.pool,
        async (client) => {
          taken = runIdsOf(
            await takeFromQueues(client, [
              { queue: QUEUE, room: 2 },
              { queue: THIRD, room: 5 },
            ]),
          );
          throw new Error('claim failed');
        },
        { maxTries: 1 },
      ),
    ).rejects.toThrow('claim failed');
    expect(taken).toEqual([
      ['a1', 'a2'],
      ['t1', 't2'],
    ]);
    expect(await left(QUEUE)).toEqual(['a1', 'a2', 'a3']);
    expect(await left(THIRD)).toEqual(['t1', 't2']);
  });

  it('looks past messages another claimer holds in one queue while taking the others', async () => {
    await enqueue(TENANT, 'normal', ['a1', 'a2']);
    await withTransaction(db.pool, (client) =>
      enqueueRuns(
        boss,
        pgExecutor(client),
        ['b1', 'b2'].map((runId) => ({
          runId,
          route: { lane: 'push' as const, tenantId: TENANT, priority: 'normal' as const },
          scheduledTime: new Date(due.getTime() + 1_000),
        })),
      ),
    );
    await enqueue('ten_take_other', 'normal', ['t1']);
    const holder = await db.pool.connect();
    try {
      await holder.query('BEGIN');
      expect((await takeMessages(holder, QUEUE, 2)).map((m) => m.data.runId)).toEqual(['a1', 'a2']);
      // The first round's candidates for QUEUE are a's message alone (its two runs fill the
      // room), held: a second round looks past it.
      const taken = await withTransaction(db.pool, (client) =>
        takeFromQueues(client, [
          { queue: QUEUE, room: 2 },
          { queue: THIRD, room: 4 },
        ]),
      );
      expect(runIdsOf(taken)).toEqual([['b1', 'b2'], ['t1']]);
      await holder.query('ROLLBACK');
    } finally {
      holder.release();
    }
    expect(await left(QUEUE)).toEqual(['a1', 'a2']);
  });

  it('hands out every run of several queues once to claimers taking from them all at once', async () => {
    const queues = [QUEUE, OTHER, THIRD];
    const all: string[] = [];
    for (const [k, queue] of queues.entries()) {
      const runIds = Array.from({ length: RUNS_PER_MESSAGE + 7 }, (_, i) => `${k}-${i}`);
      all.push(...runIds);
      const { tenantId, priority } =
        queue === THIRD
          ? { tenantId: 'ten_take_other', priority: 'normal' as const }
          : { tenantId: TENANT, priority: queue === OTHER ? ('high' as const) : ('normal' as const) };
      await enqueue(tenantId, priority, runIds);
    }
    const got: string[] = [];
    await Promise.all(
      Array.from({ length: 5 }, async () => {
        for (;;) {
          const taken = await withTransaction(db.pool, (client) =>
            takeFromQueues(
              client,
              queues.map((queue) => ({ queue, room: 6 })),
            ),
          );
          const ids = taken.flat().map((m) => m.data.runId);
          if (!ids.length) return;
          got.push(...ids);
        }
      }),
    );
    expect(got.sort()).toEqual(all.sort());
  });

  it('refuses a queue given twice', async () => {
    await expect(
      withTransaction(db.pool, (client) =>
        takeFromQueues(client, [
          { queue: QUEUE, room: 1 },
          { queue: QUEUE, room: 2 },
        ]),
      ),
    ).rejects.toThrow('a queue given twice');
  });
});
