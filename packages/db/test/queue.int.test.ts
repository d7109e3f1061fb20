// The queue module on real PostgreSQL and pg-boss: runs go to the queue of their route (lane,
// tenant, priority or pull queue name), discovery sees only the lanes asked for — so engine
// workers, which discover the lanes they serve, never see pull queues — and depth counts what
// waits for engine workers.
import type { QueueRoute } from '@belfry/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../test/db';
import {
  createQueueClient,
  discoverQueues,
  enqueueRuns,
  pgExecutor,
  type QueueClient,
  queueDepth,
  queuedMessages,
  queueName,
  withTransaction,
} from '../src/index';

const TENANT = 'ten_queue_test';
const OTHER = 'ten_other';

describe('queue routing, discovery and depth', () => {
  let db: TestDatabase;
  let boss: QueueClient;
  const routes: Record<string, QueueRoute> = {
    push: { lane: 'push', tenantId: TENANT, priority: 'high' },
    pushOther: { lane: 'push', tenantId: OTHER, priority: 'high' },
    container: { lane: 'container', tenantId: TENANT, priority: 'normal' },
    pull: { lane: 'pull', tenantId: TENANT, queue: 'reports' },
  };

  beforeAll(async () => {
    db = await createTestDatabase();
    boss = await createQueueClient(db.url, { max: 2 });
    const due = new Date(Date.now() - 1_000);
    const later = new Date(Date.now() + 3_600_000);
    await withTransaction(db.pool, (client) =>
      enqueueRuns(boss, pgExecutor(client), [
        { runId: 'run_push_1', route: routes.push!, scheduledTime: due },
        { runId: 'run_push_2', route: routes.push!, scheduledTime: later },
        { runId: 'run_other_1', route: routes.pushOther!, scheduledTime: due },
        { runId: 'run_container_1', route: routes.container!, scheduledTime: due },
        { runId: 'run_pull_1', route: routes.pull!, scheduledTime: due },
      ]),
    );
  });
  afterAll(async () => {
    await boss?.stop({ graceful: false, close: true });
    await db?.destroy();
  });

  it('puts each run on the queue of its route', async () => {
    const messages = await queuedMessages(db.pool);
    const byRun = Object.fromEntries(messages.map((m) => [m.runId, m.name]));
    expect(byRun).toEqual({
      run_push_1: `t.${TENANT}.high`,
      run_push_2: `t.${TENANT}.high`,
      run_other_1: `t.${OTHER}.high`,
      run_container_1: `c.${TENANT}.normal`,
      run_pull_1: `p.${TENANT}.reports`,
    });
  });

  it('discovers only the lanes asked for: push workers never see container or pull queues', async () => {
    const names = async (lanes: Parameters<typeof discoverQueues>[1]) =>
      (await discoverQueues(db.pool, lanes)).map((q) => q.name).sort();
    expect(await names(['push'])).toEqual([queueName(routes.pushOther!), queueName(routes.push!)].sort());
    expect(await names(['container'])).toEqual([queueName(routes.container!)]);
    expect(await names(['push', 'container'])).toHaveLength(3);
    expect(await names(['pull'])).toEqual([queueName(routes.pull!)]);
    expect(await names([])).toEqual([]);
  });

  it('tells the earliest and the next future start of a queue', async () => {
    const [push] = (await discoverQueues(db.pool, ['push'])).filter((q) => q.name === queueName(routes.push!));
    expect(push!.at.getTime()).toBeLessThan(Date.now());
    expect(push!.next!.getTime()).toBeGreaterThan(Date.now() + 3_500_000);
  });

  it('counts what waits for engine workers by priority, for everyone and for one tenant', async () => {
    const depth = await queueDepth(db.pool, TENANT);
    expect(depth).toEqual([
      { priority: 'high', total: 3, totalDue: 2, tenant: 2, tenantDue: 1 },
      { priority: 'normal', total: 1, totalDue: 1, tenant: 1, tenantDue: 1 },
      { priority: 'low', total: 0, totalDue: 0, tenant: 0, tenantDue: 0 },
    ]);
    expect((await queueDepth(db.pool)).map((d) => d.tenant)).toEqual([0, 0, 0]);
  });
});
