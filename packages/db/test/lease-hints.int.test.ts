// Lease hints (open-runs.ts): a materialized run's open_runs row is written leased until its due
// time plus the hint, so that a claim made before the hint passes, whose lease the hint does not
// outlast, writes nothing there; the reaper looks at the run when the hint passes, moves the hint
// of a live run to its lease, and reaps the run once that lease has passed.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../test/db';
import { insertTenant } from '../../../test/fixtures';
import { claimRuns, type PassedLease, refreshLeaseHints, selectExpiredRuns, withTransaction } from '../src/index';
import { insertPendingRunsOfOneJob } from './pending-runs';

const HINT_MS = 28_500;
const LEASE_MS = 30_000;

describe('lease hints', () => {
  let db: TestDatabase;
  let tenantId: string;
  beforeAll(async () => {
    db = await createTestDatabase();
    tenantId = (await insertTenant(db.pool)).id;
  });
  afterAll(() => db.destroy());

  /** `n` pending runs of a new job, due `dueInMs` from now (by the database's clock), hinted (null: not) */
  async function materialize(n: number, dueInMs: number, leaseHintMs: number | null = HINT_MS) {
    const { rows } = await db.pool.query<{ now: Date }>('SELECT now() AS now');
    const firstAt = new Date((rows[0] as { now: Date }).now.getTime() + dueInMs);
    const { runs } = await insertPendingRunsOfOneJob(db, tenantId, n, {
      firstAt,
      ...(leaseHintMs === null ? {} : { leaseHintMs }),
    });
    return runs;
  }

  const leases = async (ids: string[]) =>
    (
      await db.pool.query<{ run_id: string; leased_until: Date | null; due_at: Date; lease_expires_at: Date | null }>(
        `SELECT o.run_id, o.leased_until, r.due_at, r.lease_expires_at
           FROM open_runs o JOIN runs r ON r.id = o.run_id AND r.scheduled_time = o.scheduled_time
          WHERE o.run_id = ANY($1) ORDER BY o.run_id`,
        [ids],
      )
    ).rows;

  /** a reaper pass: the runs it would reap, then (on its own) the passed hints of the rest moved */
  async function reaperPass() {
    const passedLeases: PassedLease[] = [];
    const found = await withTransaction(db.pool, (tx) => selectExpiredRuns(tx, 100, { passedLeases }));
    const refreshed = await refreshLeaseHints(db.pool, passedLeases);
    return { found: found.map((r) => r.id), refreshed, passed: passedLeases.map((p) => p.runId) };
  }

  /** open_runs' updated rows so far, as this backend's counters say once flushed */
  async function openRunsUpdates(client: pg.Client): Promise<number> {
    await client.query('SELECT pg_stat_force_next_flush()');
    const { rows } = await client.query<{ n: string }>(
      `SELECT n_tup_upd::text AS n FROM pg_stat_user_tables WHERE relid = 'open_runs'::regclass`,
    );
    return Number(rows[0]?.n);
  }

  it('materialized runs are listed leased until their due time plus the hint; without one, they are not', async () => {
    const hinted = await materialize(3, 2_000);
    for (const row of await leases(hinted.map((r) => r.id))) {
      expect(row.leased_until?.getTime()).toBe(row.due_at.getTime() + HINT_MS);
    }
    const plain = await materialize(2, 2_000, null);
    for (const row of await leases(plain.map((r) => r.id))) expect(row.leased_until).toBeNull();
  });

  it('a claim made before the hint passes, whose lease the hint does not outlast, writes nothing to open_runs', async () => {
    const runs = await materialize(40, 0);
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      const before = await openRunsUpdates(client);
      const claimed = await claimRuns(
        client,
        'worker-hinted',
        LEASE_MS,
        runs.map((r) => r.id),
        runs.map((r) => r.scheduled_time),
      );
      expect(claimed).toHaveLength(runs.length);
      expect((await openRunsUpdates(client)) - before).toBe(0);
    } finally {
      await client.end();
    }
    for (const row of await leases(runs.map((r) => r.id))) {
      // the hint stands for the lease: never later than it
      expect(row.leased_until?.getTime()).toBe(row.due_at.getTime() + HINT_MS);
      expect(row.leased_until!.getTime()).toBeLessThanOrEqual(row.lease_expires_at!.getTime());
    }
  });

  it('a claim writes its lease where the hint outlasts it (a shorter lease), where it has passed, or where there is none', async () => {
    const [outlasting] = await materialize(1, 0);
    const [passed] = await materialize(1, 0);
    const [none] = await materialize(1, 0, null);
    await db.pool.query(`UPDATE open_runs SET leased_until = now() - interval '1 second' WHERE run_id = $1`, [
      passed!.id,
    ]);
    await claimRuns(db.pool, 'worker-short', 5_000, [outlasting!.id], [outlasting!.scheduled_time]);
    await claimRuns(
      db.pool,
      'worker-hinted',
      LEASE_MS,
      [passed!.id, none!.id],
      [passed!.scheduled_time, none!.scheduled_time],
    );
    const rows = await leases([outlasting!.id, passed!.id, none!.id]);
    expect(rows).toHaveLength(3);
    for (const row of rows) expect(row.leased_until).toEqual(row.lease_expires_at);
  });

  it('the reaper clears the passed hint of a run not claimed, moves that of a live run to its lease, and reaps an expired one', async () => {
    const [waiting, live, dead] = [
      (await materialize(1, 0))[0]!,
      (await materialize(1, 0))[0]!,
      (await materialize(1, 0))[0]!,
    ];
    await claimRuns(db.pool, 'worker-hinted', LEASE_MS, [live.id, dead.id], [live.scheduled_time, dead.scheduled_time]);
    // every hint passed; the dead run's lease too (its worker stopped heartbeating)
    await db.pool.query(`UPDATE open_runs SET leased_until = now() - interval '1 second' WHERE run_id = ANY($1)`, [
      [waiting.id, live.id, dead.id],
    ]);
    await db.pool.query(`UPDATE runs SET lease_expires_at = now() - interval '1 second' WHERE id = $1`, [dead.id]);
    const first = await reaperPass();
    expect(first.found).toEqual([dead.id]);
    expect(first.refreshed).toBe(2);
    const rows = new Map((await leases([waiting.id, live.id, dead.id])).map((r) => [r.run_id, r]));
    expect(rows.get(waiting.id)?.leased_until).toBeNull();
    expect(rows.get(live.id)?.leased_until).toEqual(rows.get(live.id)?.lease_expires_at);
    expect(rows.get(dead.id)!.leased_until!.getTime()).toBeLessThan(Date.now());
    // the next pass finds no passed lease but the dead run's
    const again = await reaperPass();
    expect(again).toEqual({ found: [dead.id], refreshed: 0, passed: [dead.id] });
  });

  it('a claim within the hint still open when the hint passes: the run is left to the next pass, its hint not cleared', async () => {
    const [run] = await materialize(1, 0, 1_000);
    const claimer = new pg.Client({ connectionString: db.url });
    await claimer.connect();
    try {
      await claimer.query('BEGIN');
      // within the hint (due + 1 s, before this 30 s lease): the row is locked, not written
      expect(await claimRuns(claimer, 'worker-slow', LEASE_MS, [run!.id], [run!.scheduled_time])).toHaveLength(1);
      await new Promise((resolve) => setTimeout(resolve, 1_200));
      // the hint has passed while the claim is open: the reaper reads the run as still waiting
      const during = await reaperPass();
      expect(during.passed).toContain(run!.id);
      expect(during.refreshed).toBe(0);
      await claimer.query('COMMIT');
    } finally {
      await claimer.end();
    }
    const [held] = await leases([run!.id]);
    expect(held!.leased_until).not.toBeNull();
    expect(held!.leased_until!.getTime()).toBeLessThan(held!.lease_expires_at!.getTime());
    // the next pass sees the claim: the hint moves to the run's lease
    expect((await reaperPass()).refreshed).toBe(1);
    const [moved] = await leases([run!.id]);
    expect(moved!.leased_until).toEqual(moved!.lease_expires_at);
  });

  it('a run claimed within its hint whose worker dies is reaped once its own lease has passed, on time', async () => {
    // due in 1 s, hinted 0.5 s past that; claimed now for 2.5 s: the hint is earlier than the lease
    const [run] = await materialize(1, 1_000, 500);
    const [claimed] = await claimRuns(db.pool, 'worker-dies', 2_500, [run!.id], [run!.scheduled_time]);
    const [listed] = await leases([run!.id]);
    expect(listed!.leased_until!.getTime()).toBeLessThan(listed!.lease_expires_at!.getTime());
    const leaseEnds = listed!.lease_expires_at!.getTime();
    let reapedAt: number | undefined;
    const deadline = Date.now() + 10_000;
    while (reapedAt === undefined && Date.now() < deadline) {
      const passedLeases: PassedLease[] = [];
      const found = await withTransaction(db.pool, (tx) => selectExpiredRuns(tx, 100, { passedLeases }));
      if (found.some((r) => r.id === claimed!.id)) reapedAt = found[0]!.db_now.getTime();
      else {
        await refreshLeaseHints(db.pool, passedLeases);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    expect(reapedAt).toBeDefined();
    expect(reapedAt!).toBeGreaterThanOrEqual(leaseEnds);
    // found within a pass or two of its lease passing (passes 100 ms apart here)
    expect(reapedAt! - leaseEnds).toBeLessThan(1_000);
  });
});
