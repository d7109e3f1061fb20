// Rebalancing partitions between scheduler nodes, on a real database: a node that holds less
// than its fair share and finds nothing free keeps looking every hungryTickMs, so partitions
// another node gives back are scheduled again within moments, not a whole tick later.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../test/db';
import { waitForValue } from '../../../test/fixtures';
import { LeaseKeeper } from '../src/cluster/lease-keeper';
import { createLogger } from '../src/logger';

const log = createLogger('silent', {});

describe('partition rebalancing between scheduler nodes', () => {
  let db: TestDatabase;
  const keepers: LeaseKeeper[] = [];

  /** Long leases and a tick of a minute: within a test only a keeper's hungry ticks come on their own. */
  const keeper = (nodeId: string, nodeTimeoutMs?: number) => {
    const k = new LeaseKeeper(
      db.pool,
      { nodeId, leaseMs: 300_000, tickMs: 60_000, hungryTickMs: 100, ...(nodeTimeoutMs ? { nodeTimeoutMs } : {}) },
      log,
    );
    keepers.push(k);
    return k;
  };
  const alive = (nodeId: string) =>
    db.pool.query(
      `INSERT INTO engine_nodes (id, roles, hostname, pid, started_at, heartbeat_at)
       VALUES ($1, ARRAY['scheduler'], 'test', 1, now(), now())
       ON CONFLICT (id) DO UPDATE SET heartbeat_at = now(), stopped_at = NULL`,
      [nodeId],
    );
  const owners = async () =>
    (
      await db.pool.query<{ owner: string | null; n: number }>(
        'SELECT owner, count(*)::int AS n FROM partition_leases GROUP BY owner ORDER BY owner',
      )
    ).rows;

  beforeAll(async () => {
    db = await createTestDatabase();
  });
  beforeEach(async () => {
    await Promise.all(keepers.splice(0).map((k) => k.stop()));
    await db.pool.query('DELETE FROM engine_nodes');
    await db.pool.query('UPDATE partition_leases SET owner = NULL, expires_at = NULL');
  });
  afterAll(async () => {
    await Promise.all(keepers.splice(0).map((k) => k.stop()));
    await db?.destroy();
  });

  it('a node below its fair share takes the partitions another node gives back without waiting for its tick', async () => {
    const half = Math.floor(db.partitions / 2);
    await alive('rb-a');
    const a = keeper('rb-a');
    await a.tick(); // the only node alive: it takes every partition
    expect(a.partitions()).toHaveLength(db.partitions);

    await alive('rb-b');
    const b = keeper('rb-b');
    await b.start(); // its first tick: a fair share of half, nothing free
    expect(b.partitions()).toHaveLength(0);

    // a's tick (normally up to a minute away here) sees two nodes and gives half back; b's next
    // normal tick is a minute away, so only a hungry tick can take them.
    await a.tick();
    expect(a.partitions()).toHaveLength(db.partitions - half);
    await waitForValue(
      () => Promise.resolve(b.partitions().length),
      (n) => n === half,
      10_000,
    );
    expect(await owners()).toEqual([
      { owner: 'rb-a', n: db.partitions - half },
      { owner: 'rb-b', n: half },
    ]);
  });

  it('hungry ticks keep looking for free partitions but leave renewal to the normal tick', async () => {
    // Every partition held by a node that is not alive but whose leases run for another hour.
    await db.pool.query(`UPDATE partition_leases SET owner = 'rb-x', expires_at = now() + interval '1 hour'`);
    await alive('rb-c');
    const c = keeper('rb-c');
    await c.start(); // its fair share is every partition; none is free
    expect(c.partitions()).toHaveLength(0);
    const free = (partition: number) =>
      db.pool.query('UPDATE partition_leases SET owner = NULL, expires_at = NULL WHERE partition = $1', [partition]);
    const expiry = async (partition: number) =>
      (
        await db.pool.query<{ at: Date }>('SELECT expires_at AS at FROM partition_leases WHERE partition = $1', [
          partition,
        ])
      ).rows[0]?.at.getTime();

    await free(0);
    await waitForValue(
      () => Promise.resolve(c.partitions().length),
      (n) => n === 1,
      10_000,
    );
    const taken = await expiry(0);
    await free(1); // taken by a later hungry tick, which must not have renewed partition 0
    await waitForValue(
      () => Promise.resolve(c.partitions().length),
      (n) => n === 2,
      10_000,
    );
    expect(await expiry(0)).toBe(taken);
    expect(await owners()).toEqual([
      { owner: 'rb-c', n: 2 },
      { owner: 'rb-x', n: db.partitions - 2 },
    ]);
  });

  it('a node that stays short with nothing coming free goes back to the normal tick', async () => {
    await db.pool.query(`UPDATE partition_leases SET owner = 'rb-x', expires_at = now() + interval '1 hour'`);
    await alive('rb-e');
    // nodeTimeoutMs bounds the hungry pace: 1 s here (other nodes count as dead after it too)
    const e = keeper('rb-e', 1_000);
    await e.start();
    await new Promise((r) => setTimeout(r, 2_000)); // hungry ticks for 1 s, then the normal (minute) tick
    await db.pool.query('UPDATE partition_leases SET owner = NULL, expires_at = NULL WHERE partition = 0');
    await new Promise((r) => setTimeout(r, 1_500)); // ten hungry ticks would have taken it
    expect(e.partitions()).toHaveLength(0);
    expect(await owners()).toEqual([
      { owner: 'rb-x', n: db.partitions - 1 },
      { owner: null, n: 1 },
    ]);
  });
});
