import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '@belfry/core';
import {
  createDatabaseMigratedBefore,
  createTestDatabase,
  dropTestDatabase,
  type TestDatabase,
} from '../../../test/db';
import { expireLeases, insertJob, insertTenant } from '../../../test/fixtures';
import {
  cancelClaimedAheadRuns,
  claimPullRuns,
  claimRuns,
  completeAttempts,
  confirmRunStarts,
  extendPullLease,
  extendRunLeases,
  failExpiredRuns,
  finishPullAttempt,
  finishPullSuccesses,
  insertScheduledRuns,
  migrate,
  selectExpiredRuns,
  sweepRunningRuns,
  withTransaction,
} from '../src/index';
import { succeededOutcome } from './outcomes';
import { insertPendingRunsOfOneJob } from './pending-runs';

const WORKER = 'worker-hot';
/** every column a claim, an adoption or a lease renewal changes */
const CLAIM_COLUMNS = ['status', 'attempt', 'worker_id', 'lease_expires_at', 'started_at', 'attempt_started_at'];

/** A pending scheduled run `offsetSeconds` from this second, of a job of its own. */
async function insertPendingRun(db: TestDatabase, tenantId: string, offsetSeconds = -1) {
  const job = await insertJob(db.pool, tenantId, {
    schedule: { type: 'cron', expression: '0 0 1 1 *', timezone: 'UTC' },
    url: 'http://127.0.0.1:9/hook',
    retry: { maxAttempts: 1, initialDelaySeconds: 1, maxDelaySeconds: 1 },
    partitions: db.partitions,
  });
  const scheduledTime = new Date(Math.floor(Date.now() / 1000) * 1000 + offsetSeconds * 1000);
  const [run] = await insertScheduledRuns(db.pool, [
    {
      id: newId('run', scheduledTime),
      tenantId,
      jobId: job.id,
      scheduledTime,
      status: 'pending',
      skipReason: null,
      priority: 'normal',
    },
  ]);
  return run!;
}

/**
 * whether the reaper looks at the run once its lease passes: leased in its open_runs row (an
 * engine's claim) or listed in running_runs (a pull worker's claim, an earlier version's)
 */
const isListed = async (db: TestDatabase, id: string) =>
  ((
    await db.pool.query(
      `SELECT 1 FROM open_runs WHERE run_id = $1 AND leased_until IS NOT NULL
       UNION ALL SELECT 1 FROM running_runs WHERE run_id = $1`,
      [id],
    )
  ).rowCount ?? 0) > 0;

describe('claims as HOT updates', () => {
  let db: TestDatabase;
  let tenantId: string;
  beforeAll(async () => {
    db = await createTestDatabase();
    tenantId = (await insertTenant(db.pool)).id;
  });
  afterAll(() => db.destroy());

  const pendingRun = (offsetSeconds = -1) => insertPendingRun(db, tenantId, offsetSeconds);
  const listed = (id: string) => isListed(db, id);

  const row = async (id: string) =>
    (
      await db.pool.query<{ status: string; finished_at: Date | null; dead_at: Date | null }>(
        'SELECT status, finished_at, dead_at FROM runs WHERE id = $1',
        [id],
      )
    ).rows[0]!;

  it('no index of runs refers to a column a claim or a lease renewal changes', async () => {
    const { rows } = await db.pool.query<{ indexname: string; indexdef: string }>(
      `SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'public' AND tablename = 'runs'`,
    );
    expect(rows.map((r) => r.indexname)).toEqual(expect.arrayContaining(['runs_dead_idx', 'runs_job_occurrence_key']));
    for (const { indexname, indexdef } of rows) {
      const words = new Set(indexdef.toLowerCase().match(/[a-z_]+/g));
      expect(
        CLAIM_COLUMNS.filter((c) => words.has(c)),
        indexname,
      ).toEqual([]);
    }
  });

  it('a claim and a renewal are heap-only updates, the lease in open_runs too; the completion unlists the run', async () => {
    const run = await pendingRun();
    const { hot, lease } = await withTransaction(db.pool, async (tx) => {
      const [claimed] = await claimRuns(tx, WORKER, 30_000, [run.id], [run.scheduled_time]);
      expect(claimed?.id).toBe(run.id);
      const renewed = await extendRunLeases(tx, WORKER, 30_000, [
        { id: run.id, scheduledTime: run.scheduled_time, attempt: 1 },
      ]);
      expect([...renewed]).toEqual([run.id]);
      // this transaction's counts for the run's partition
      const { rows } = await tx.query<{ updated: string; hot: string }>(
        `SELECT pg_stat_get_xact_tuples_updated(r.tableoid)::text AS updated,
                pg_stat_get_xact_tuples_hot_updated(r.tableoid)::text AS hot
           FROM runs r WHERE r.id = $1`,
        [run.id],
      );
      const { rows: leases } = await tx.query<{ updated: string; hot: string }>(
        `SELECT pg_stat_get_xact_tuples_updated(c.oid)::text AS updated,
                pg_stat_get_xact_tuples_hot_updated(c.oid)::text AS hot
           FROM pg_class c WHERE c.oid = 'open_runs'::regclass`,
      );
      return { hot: rows[0]!, lease: leases[0]! };
    });
    expect(hot).toEqual({ updated: '2', hot: '2' });
    // the lease is written into the run's row of open_runs, in place: still one row
    expect(lease).toEqual({ updated: '1', hot: '1' });
    expect((await db.pool.query('SELECT 1 FROM open_runs WHERE run_id = $1', [run.id])).rowCount).toBe(1);
    expect(await listed(run.id)).toBe(true);
    expect(
      (await db.pool.query('SELECT 1 FROM running_runs WHERE run_id = $1', [run.id])).rowCount,
      'no running_runs row for an engine claim',
    ).toBe(0);

    const done = await completeAttempts(db.pool, WORKER, [succeededOutcome(run, { durationMs: 3 })]);
    expect(done.map((d) => d.id)).toEqual([run.id]);
    expect(await listed(run.id)).toBe(false);
    expect(await row(run.id)).toMatchObject({ status: 'succeeded', dead_at: null });
  });

  it('a run that goes dead gets dead_at (its finished_at), by a completion or by the reaper', async () => {
    const byWorker = await pendingRun();
    await claimRuns(db.pool, WORKER, 30_000, [byWorker.id], [byWorker.scheduled_time]);
    await completeAttempts(db.pool, WORKER, [
      {
        runId: byWorker.id,
        scheduledTime: byWorker.scheduled_time,
        attempt: 1,
        runStatus: 'dead',
        attemptStatus: 'failed',
        nextAttemptAt: null,
        httpStatus: 500,
        durationMs: 3,
        error: 'HTTP 500',
        responseSnippet: null,
        requestHeaders: null,
      },
    ]);
    const dead = await row(byWorker.id);
    expect(dead.status).toBe('dead');
    expect(dead.dead_at).not.toBeNull();
    expect(dead.dead_at).toEqual(dead.finished_at);

    const byReaper = await pendingRun();
    await claimRuns(db.pool, WORKER, 30_000, [byReaper.id], [byReaper.scheduled_time]);
    await expireLeases(db.pool, [byReaper.id]);
    const moved = await withTransaction(db.pool, async (tx) => {
      const expired = await selectExpiredRuns(tx, 100);
      expect(expired.map((r) => r.id)).toContain(byReaper.id);
      return failExpiredRuns(tx, [
        {
          id: byReaper.id,
          scheduledTime: byReaper.scheduled_time,
          attempt: 1,
          status: 'dead',
          nextAttemptAt: null,
          error: 'lease expired',
        },
      ]);
    });
    expect(moved).toEqual([byReaper.id]);
    const reaped = await row(byReaper.id);
    expect(reaped).toMatchObject({ status: 'dead' });
    expect(reaped.dead_at).toEqual(reaped.finished_at);
    expect(await listed(byReaper.id)).toBe(false);
  });

  it("the reaper finds an expired lease through the run's open_runs row, and only a running run", async () => {
    const running = await pendingRun();
    const retrying = await pendingRun();
    await claimRuns(
      db.pool,
      WORKER,
      30_000,
      [running.id, retrying.id],
      [running.scheduled_time, retrying.scheduled_time],
    );
    // both leases expired; one run has since moved to a retry wait without unlisting itself
    await expireLeases(db.pool, [running.id, retrying.id]);
    await db.pool.query(
      `UPDATE runs SET status = 'failed', next_attempt_at = now() + interval '1 hour' WHERE id = $1`,
      [retrying.id],
    );
    const found = await withTransaction(db.pool, (tx) => selectExpiredRuns(tx, 100));
    expect(found.map((r) => r.id)).toContain(running.id);
    expect(found.map((r) => r.id)).not.toContain(retrying.id);
  });

  it('a run going back to wait for a retry keeps its open_runs row without a lease; a claim lists a run missing there', async () => {
    const [byWorker, byReaper] = [await pendingRun(), await pendingRun()];
    await claimRuns(
      db.pool,
      WORKER,
      30_000,
      [byWorker.id, byReaper.id],
      [byWorker.scheduled_time, byReaper.scheduled_time],
    );
    await completeAttempts(db.pool, WORKER, [
      {
        runId: byWorker.id,
        scheduledTime: byWorker.scheduled_time,
        attempt: 1,
        runStatus: 'failed',
        attemptStatus: 'failed',
        nextAttemptAt: new Date(Date.now() + 3_600_000),
        httpStatus: 500,
        durationMs: 3,
        error: 'HTTP 500',
        responseSnippet: null,
        requestHeaders: null,
      },
    ]);
    await expireLeases(db.pool, [byReaper.id]);
    await withTransaction(db.pool, (tx) =>
      failExpiredRuns(tx, [
        {
          id: byReaper.id,
          scheduledTime: byReaper.scheduled_time,
          attempt: 1,
          status: 'failed',
          nextAttemptAt: new Date(Date.now() + 3_600_000),
          error: 'lease expired',
        },
      ]),
    );
    const rows = await db.pool.query<{ run_id: string; leased_until: Date | null }>(
      'SELECT run_id, leased_until FROM open_runs WHERE run_id = ANY($1) ORDER BY run_id',
      [[byWorker.id, byReaper.id]],
    );
    expect(rows.rows).toEqual([byWorker.id, byReaper.id].sort().map((id) => ({ run_id: id, leased_until: null })));

    // a run whose open_runs row is missing (deleted by hand, say) is still found by the reaper
    const orphan = await pendingRun();
    await db.pool.query('DELETE FROM open_runs WHERE run_id = $1', [orphan.id]);
    await claimRuns(db.pool, WORKER, 30_000, [orphan.id], [orphan.scheduled_time]);
    expect(await listed(orphan.id)).toBe(true);
    await expireLeases(db.pool, [orphan.id]);
    const found = await withTransaction(db.pool, (tx) => selectExpiredRuns(tx, 100));
    expect(found.map((r) => r.id)).toContain(orphan.id);
  });

  it('the reaper looks only at runs whose claimed lease has passed; a lease only moves later', async () => {
    const renewed = await pendingRun();
    const old = await pendingRun();
    const claimed = await claimRuns(
      db.pool,
      WORKER,
      30_000,
      [renewed.id, old.id],
      [renewed.scheduled_time, old.scheduled_time],
    );
    const leases = await db.pool.query<{ run_id: string; leased_until: Date; lease_expires_at: Date }>(
      `SELECT x.run_id, x.leased_until, r.lease_expires_at
         FROM open_runs x JOIN runs r ON r.id = x.run_id AND r.scheduled_time = x.scheduled_time
        WHERE x.run_id = ANY($1)`,
      [claimed.map((c) => c.id)],
    );
    // the claim's lease, copied
    expect(leases.rows).toHaveLength(2);
    for (const l of leases.rows) expect(l.leased_until).toEqual(l.lease_expires_at);
    // A heartbeat moves the run's lease later: the claim's has passed, the run's has not.
    await db.pool.query(`UPDATE open_runs SET leased_until = now() - interval '1 second' WHERE run_id = $1`, [
      renewed.id,
    ]);
    expect(
      await extendRunLeases(db.pool, WORKER, 30_000, [
        { id: renewed.id, scheduledTime: renewed.scheduled_time, attempt: 1 },
      ]),
    ).toEqual(new Set([renewed.id]));
    // A run an earlier version claimed is listed in running_runs, its row there without a lease:
    // always looked at.
    await db.pool.query(`UPDATE open_runs SET leased_until = NULL WHERE run_id = $1`, [old.id]);
    await db.pool.query(`INSERT INTO running_runs (run_id, scheduled_time) VALUES ($1, $2)`, [
      old.id,
      old.scheduled_time,
    ]);
    await db.pool.query(`UPDATE runs SET lease_expires_at = now() - interval '1 second' WHERE id = $1`, [old.id]);
    const found = await withTransaction(db.pool, (tx) => selectExpiredRuns(tx, 100));
    expect(found.map((r) => r.id)).toContain(old.id);
    expect(found.map((r) => r.id)).not.toContain(renewed.id);
  });

  it("a pull worker's heartbeat that asks for a shorter lease lowers the reaper's copy, never raises it", async () => {
    const run = await pendingRun();
    const [pulled] = await claimPullRuns(db.pool, 'pull-short', 60_000, [run.id], [run.scheduled_time]);
    expect(pulled?.id).toBe(run.id);
    const lease = { runId: run.id, scheduledTime: run.scheduled_time, tenantId, attempt: 1, worker: 'pull-short' };
    const copy = async () =>
      (await db.pool.query<{ leased_until: Date }>('SELECT leased_until FROM running_runs WHERE run_id = $1', [run.id]))
        .rows[0]?.leased_until;
    const shorter = await extendPullLease(db.pool, lease, 1_000);
    expect(shorter).not.toBeNull();
    expect(await copy()).toEqual(shorter);
    const longer = await extendPullLease(db.pool, lease, 120_000);
    expect(longer!.getTime()).toBeGreaterThan(shorter!.getTime());
    expect(await copy()).toEqual(shorter);
  });

  it("a pull worker's reports and a cancel of runs claimed ahead unlist their runs", async () => {
    const [failed, succeeded] = [await pendingRun(), await pendingRun()];
    const pulled = await claimPullRuns(
      db.pool,
      'pull-worker',
      30_000,
      [failed.id, succeeded.id],
      [failed.scheduled_time, succeeded.scheduled_time],
    );
    expect(pulled).toHaveLength(2);
    expect(await listed(failed.id)).toBe(true);
    const lease = (r: { id: string; scheduled_time: Date }) => ({
      runId: r.id,
      scheduledTime: r.scheduled_time,
      tenantId,
      attempt: 1,
      worker: 'pull-worker',
    });
    await finishPullAttempt(db.pool, lease(failed), {
      runStatus: 'dead',
      nextAttemptAt: null,
      error: 'boom',
      output: 'trace',
    });
    await finishPullSuccesses(db.pool, [{ lease: lease(succeeded), output: 'fine' }]);
    expect(await listed(failed.id)).toBe(false);
    expect(await listed(succeeded.id)).toBe(false);

    const ahead = await pendingRun(60);
    await claimRuns(db.pool, WORKER, 30_000, [ahead.id], [ahead.scheduled_time]);
    expect(await listed(ahead.id)).toBe(true);
    expect(await cancelClaimedAheadRuns(db.pool, tenantId, ahead.job_id, new Date())).toEqual([ahead.id]);
    expect(await listed(ahead.id)).toBe(false);
  });

  it('the sweep of running_runs removes the rows of finished or vanished runs and keeps those of open runs', async () => {
    const finished = await pendingRun();
    const waiting = await pendingRun();
    const running = await pendingRun();
    const runs = [finished, waiting, running];
    await claimPullRuns(
      db.pool,
      'pull-sweep',
      30_000,
      runs.map((r) => r.id),
      runs.map((r) => r.scheduled_time),
    );
    // enders that did not unlist: a cancel (finished) and a move to a retry wait (still open)
    await db.pool.query(`UPDATE runs SET status = 'cancelled', finished_at = now() WHERE id = $1`, [finished.id]);
    await db.pool.query(`UPDATE runs SET status = 'failed', next_attempt_at = now() WHERE id = $1`, [waiting.id]);
    // a row whose run is gone (history trimmed), left by an earlier version (no lease)
    await db.pool.query(`INSERT INTO running_runs (run_id, scheduled_time) VALUES ('run_gone', now())`);

    // the finished run's lease has not passed: its row waits for a later sweep
    expect(await sweepRunningRuns(db.pool, 1000)).toBeGreaterThanOrEqual(1);
    expect(await listed('run_gone')).toBe(false);
    expect(await listed(finished.id)).toBe(true);
    await expireLeases(
      db.pool,
      runs.map((r) => r.id),
    );
    expect(await sweepRunningRuns(db.pool, 1000)).toBeGreaterThanOrEqual(1);
    expect(await listed(finished.id)).toBe(false);
    expect(await listed('run_gone')).toBe(false);
    expect(await listed(waiting.id)).toBe(true);
    expect(await listed(running.id)).toBe(true);

    // the retry's claim finds the row still there and keeps it
    const [again] = await claimPullRuns(db.pool, 'pull-sweep', 30_000, [waiting.id], [waiting.scheduled_time]);
    expect(again?.attempt).toBe(2);
    expect(await listed(waiting.id)).toBe(true);
  });
});

describe('the reaper on a day partition filled after its statistics', () => {
  let db: TestDatabase;
  let tenantId: string;
  beforeAll(async () => {
    db = await createTestDatabase();
    tenantId = (await insertTenant(db.pool)).id;
  });
  afterAll(() => db.destroy());

  it("the scan and the sweep probe runs by key, never reading a day's partition analyzed before its runs", async () => {
    await db.pool.query('ANALYZE runs');
    // a herd's worth of finished runs in the partition of its day, after its statistics
    const base = new Date(Math.floor(Date.now() / 1000) * 1000 - 30_000);
    await db.pool.query(
      `INSERT INTO runs (id, tenant_id, job_id, scheduled_time, status, trigger, attempt, finished_at)
       SELECT 'run_scan_' || g, $1, 'job_scan_' || g, $2, 'succeeded', 'schedule', 1, now()
         FROM generate_series(1, 20000) g`,
      [tenantId, base],
    );
    const { rows: day } = await db.pool.query<{ oid: number }>(
      `SELECT tableoid::int AS oid FROM runs WHERE id = 'run_scan_1' AND scheduled_time = $1`,
      [base],
    );
    const inFlight = await insertPendingRun(db, tenantId, -29);
    const expired = await insertPendingRun(db, tenantId, -28);
    await claimRuns(
      db.pool,
      WORKER,
      30_000,
      [inFlight.id, expired.id],
      [inFlight.scheduled_time, expired.scheduled_time],
    );
    await expireLeases(db.pool, [expired.id]);
    // sequential scans of that partition in one transaction of a new connection (its pending
    // counts are this transaction's alone; empty partitions may be read so, at no cost)
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    let scans: string | undefined;
    try {
      await client.query('BEGIN');
      const found = (await selectExpiredRuns(client, 100)).map((r) => r.id);
      expect(found).toContain(expired.id);
      expect(found).not.toContain(inFlight.id);
      await sweepRunningRuns(client, 100);
      const { rows } = await client.query<{ scans: string }>(
        'SELECT pg_stat_get_xact_numscans($1::oid)::text AS scans',
        [day[0]?.oid],
      );
      scans = rows[0]?.scans;
      await client.query('COMMIT');
    } finally {
      await client.end();
    }
    expect(scans).toBe('0');
    expect(await isListed(db, inFlight.id)).toBe(true);
  });

  it('a pass reads only the lists while no lease has passed, and probes the runs once one has', async () => {
    const run = await insertPendingRun(db, tenantId, -27);
    await claimRuns(db.pool, WORKER, 30_000, [run.id], [run.scheduled_time]);
    // the previous test's expired run is still listed with its lease passed: out of the way
    await db.pool.query('DELETE FROM open_runs WHERE leased_until < now()');
    const scan = () =>
      withTransaction(db.pool, async (tx) => {
        const statements: string[] = [];
        const counted = {
          query: (text: string, values?: unknown[]) => {
            statements.push(text);
            return tx.query(text, values);
          },
        } as typeof tx;
        const found = await selectExpiredRuns(counted, 100);
        return { found: found.map((r) => r.id), probedRuns: statements.some((t) => /\bFROM runs\b/.test(t)) };
      });
    // in flight: the lists are read, no statement on runs is planned or run
    expect(await scan()).toEqual({ found: [], probedRuns: false });
    await expireLeases(db.pool, [run.id]);
    expect(await scan()).toEqual({ found: [run.id], probedRuns: true });
  });

  it('a backlog of thousands of passed leases is probed from the lists themselves, not carried to the node', async () => {
    await db.pool.query('DELETE FROM open_runs WHERE leased_until < now()');
    // rows of runs that no longer run, listed before the one expired run (a sequential read meets them first)
    await db.pool.query(
      `INSERT INTO open_runs (job_id, scheduled_time, run_id, leased_until)
       SELECT 'job_backlog_' || g, now() - interval '1 hour', 'run_backlog_' || g, now() - interval '1 minute'
         FROM generate_series(1, 6000) g`,
    );
    const run = await insertPendingRun(db, tenantId, -26);
    await claimRuns(db.pool, WORKER, 30_000, [run.id], [run.scheduled_time]);
    await expireLeases(db.pool, [run.id]);
    const found = await withTransaction(db.pool, (tx) => selectExpiredRuns(tx, 100));
    expect(found.map((r) => r.id)).toEqual([run.id]);
    await db.pool.query(`DELETE FROM open_runs WHERE run_id LIKE 'run_backlog_%'`);
  });
});

describe('batch statements that find runs by key', () => {
  let db: TestDatabase;
  let tenantId: string;
  beforeAll(async () => {
    db = await createTestDatabase();
    tenantId = (await insertTenant(db.pool)).id;
  });
  afterAll(() => db.destroy());

  async function claimedRuns(n: number) {
    const { runs } = await insertPendingRunsOfOneJob(db, tenantId, n);
    const claimed = await claimRuns(
      db.pool,
      WORKER,
      30_000,
      runs.map((r) => r.id),
      runs.map((r) => r.scheduled_time),
    );
    expect(claimed).toHaveLength(n);
    return claimed;
  }

  it('a heartbeat and a start check hold only the attempt the worker runs', async () => {
    const [a, b] = await claimedRuns(2);
    const mine = [
      { id: a!.id, scheduledTime: a!.scheduled_time, attempt: 1 },
      { id: b!.id, scheduledTime: b!.scheduled_time, attempt: 2 }, // an attempt it no longer holds
    ];
    expect([...(await extendRunLeases(db.pool, WORKER, 60_000, mine))]).toEqual([a!.id]);
    expect([...(await extendRunLeases(db.pool, 'another-worker', 60_000, mine))]).toEqual([]);
    const check = await confirmRunStarts(db.pool, WORKER, mine);
    expect([...check.held.keys()]).toEqual([a!.id]);
    expect(check.held.get(a!.id)).toEqual({ committed: true });
  });

  it('a completion of 300 runs records each once, and the transaction plans with nested loops again after it', async () => {
    const runs = await claimedRuns(300);
    const setting = await withTransaction(db.pool, async (tx) => {
      const done = await completeAttempts(
        tx,
        WORKER,
        runs.map((r) => succeededOutcome(r)),
      );
      expect(done).toHaveLength(300);
      return (await tx.query<{ v: string }>(`SELECT current_setting('enable_nestloop') AS v`)).rows[0]!.v;
    });
    expect(setting).toBe('on');
    const { rows } = await db.pool.query<{ runs: number; attempts: number; listed: number }>(
      `SELECT (SELECT count(*)::int FROM runs WHERE id = ANY($1) AND status = 'succeeded') AS runs,
              (SELECT count(*)::int FROM run_attempt_history WHERE run_id = ANY($1)) AS attempts,
              (SELECT count(*)::int FROM running_runs WHERE run_id = ANY($1)) AS listed`,
      [runs.map((r) => r.id)],
    );
    expect(rows[0]).toEqual({ runs: 300, attempts: 300, listed: 0 });
  });
});

describe('upgrade to HOT claims', () => {
  const MIGRATION = '20261202000000_hot_claims';

  it('lists the runs running at the upgrade and marks the dead ones', async () => {
    const { name, url } = await createDatabaseMigratedBefore(MIGRATION, 'belfry_test_hot');
    const client = new pg.Client({ connectionString: url });
    try {
      await client.connect();
      await client.query(`INSERT INTO tenants (id, name, slug) VALUES ('ten_up', 'up', 'up')`);
      await client.query(
        `INSERT INTO jobs (id, tenant_id, name, schedule_type, cron_expression, target, partition)
         VALUES ('job_up', 'ten_up', 'up', 'cron', '* * * * *', '{"type":"http"}', 1)`,
      );
      const at = new Date(Math.floor(Date.now() / 1000) * 1000 - 60_000);
      for (const [id, status, finished] of [
        ['run_running', 'running', false],
        ['run_dead', 'dead', true],
        ['run_done', 'succeeded', true],
        ['run_waiting', 'failed', false],
      ] as const) {
        await client.query(
          `INSERT INTO runs (id, tenant_id, job_id, scheduled_time, status, attempt, trigger, finished_at)
           VALUES ($1, 'ten_up', 'job_up', $2, $3, 1, 'manual', $4)`,
          [id, at, status, finished ? at : null],
        );
      }

      expect((await migrate(url, { partitions: 16 })).applied).toContain(MIGRATION);
      const { rows: running } = await client.query('SELECT run_id FROM running_runs');
      expect(running).toEqual([{ run_id: 'run_running' }]);
      const { rows: dead } = await client.query('SELECT id, dead_at FROM runs WHERE dead_at IS NOT NULL');
      expect(dead).toEqual([{ id: 'run_dead', dead_at: at }]);
      const { rows: fill } = await client.query<{ relname: string; reloptions: string[] | null }>(
        `SELECT c.relname, c.reloptions FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
          WHERE i.inhparent = 'runs'::regclass`,
      );
      expect(fill.length).toBeGreaterThan(1);
      // (70 from this migration; 50 from 20261207190000_runs_room_for_outcomes, which migrate() applies too)
      for (const p of fill) expect(p.reloptions, p.relname).toContain('fillfactor=50');
      // partitions made from now on have the room too
      await client.query(`SELECT belfry_ensure_history_partitions('2031-01-01', '2031-01-01')`);
      const { rows: made } = await client.query<{ reloptions: string[] | null }>(
        `SELECT reloptions FROM pg_class WHERE relname IN ('runs_20310101', 'run_attempts_20310101') ORDER BY relname`,
      );
      expect(made.map((m) => m.reloptions)).toEqual([null, ['fillfactor=50']]);
    } finally {
      await client.end().catch(() => {});
      await dropTestDatabase(name);
    }
  });
});
