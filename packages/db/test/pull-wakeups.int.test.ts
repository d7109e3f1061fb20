// The pull-queue wake listener (pull-wakeups.ts) across a killed connection: it reports the loss,
// connects and listens again by itself, says so (onListening: the web process ends its failure
// streak there), and hints reach its waiters again.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../test/db';
import { waitForValue } from '../../../test/fixtures';
import { lanePrefix, PullWakeups, WAKE_CHANNEL } from '@belfry/db';

let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase();
});

afterAll(async () => {
  await db?.destroy();
});

async function listenerPids(): Promise<number[]> {
  const { rows } = await db.pool.query<{ pid: number }>(
    `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'belfry-pull-wakeups'`,
  );
  return rows.map((r) => r.pid);
}

describe('PullWakeups', () => {
  it('listens again after its connection is killed, says so, and wakes waiters on hints again', async () => {
    const events: string[] = [];
    const wakeups = new PullWakeups({
      url: db.url,
      // long polls: a waiter that returns early was woken by a hint
      pollMs: 60_000,
      disconnectedPollMs: 60_000,
      onError: () => events.push('error'),
      onListening: () => events.push('listening'),
    });
    await wakeups.start();
    try {
      expect(events).toEqual(['listening']);
      const [pid] = await listenerPids();
      expect(pid).toBeTypeOf('number');

      await db.pool.query('SELECT pg_terminate_backend($1)', [pid]);
      // the listener back: listening again, on a new backend
      await waitForValue(
        listenerPids,
        (pids) => events.at(-1) === 'listening' && pids.length === 1 && pids[0] !== pid,
        15_000,
      );
      expect(events[0]).toBe('listening');
      expect(events.slice(1, -1)).toContain('error');
      expect(events.filter((e) => e === 'listening')).toHaveLength(2);

      const queue = `${lanePrefix('pull')}ten_test.reports`;
      const wait = wakeups.wait(queue, Date.now() + 60_000);
      let woken = false;
      void wait.done.then(() => {
        woken = true;
      });
      await db.pool.query('SELECT pg_notify($1, $2)', [WAKE_CHANNEL, JSON.stringify([{ q: queue, at: Date.now() }])]);
      await waitForValue(
        async () => woken,
        (w) => w,
        15_000,
      );
    } finally {
      await wakeups.stop();
    }
  });
});
