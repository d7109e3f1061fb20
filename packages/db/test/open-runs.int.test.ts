// Open runs listed in open_runs (migration 20261202050000): every inserter lists a pending run,
// every ender unlists the run it finishes (a retry stays listed), completions are HOT updates,
// readers of a job's open runs find them there, and the sweep removes what an ender left.
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
  type AttemptOutcome,
  cancelClaimedAheadRuns,
  claimPullRuns,
  claimRuns,
  completeAttempts,
  advanceSchedule,
  jobStatusSql,
  failExpiredRuns,
  finishPullAttempt,
  finishPullSuccesses,
  insertScheduledRuns,
  migrate,
  openRunOf,
  selectExpiredRuns,
  skipOverlappingRuns,
  sweepOpenRuns,
  withTransaction,
} from '../src/index';

const WORKER = 'worker-open';
/** every column a completion of a run that does not go dead changes */
const COMPLETION_COLUMNS = ['status', 'finished_at', 'next_attempt_at', 'lease_expires_at', 'last_error'];

describe('open runs listed in open_runs', () => {
  let db: TestDatabase;
  let tenantId: string;
  beforeAll(async () => {
    db = await createTestDatabase();
    tenantId = (await insertTenant(db.pool)).id;
  });
  afterAll(() => db.destroy());

  async function newJob(overlap: 'allow' | 'skip' = 'allow') {
    const job = await insertJob(db.pool, tenantId, {
      schedule: { type: 'cron', expression: '0 0 1 1 *', timezone: 'UTC' },
      url: 'http://127.0.0.1:9/hook',
      retry: { maxAttempts: 3, initialDelaySeconds: 1, maxDelaySeconds: 1 },
      partitions: db.partitions,
    });
    if (overlap === 'skip') await db.pool.query(`UPDATE jobs SET overlap_policy = 'skip' WHERE id = $1`, [job.id]);
    return job.id;
  }

  /** A run of the job `offsetSeconds` from the current whole second. Calls within one test pass
   *  ascending offsets: a second boundary between two calls then only moves the later run further
   *  (descending offsets one apart could land on the same time, and the second insert be ignored). */
  async function scheduledRun(jobId: string, offsetSeconds = -1, status: 'pending' | 'skipped' = 'pending') {
    const scheduledTime = new Date(Math.floor(Date.now() / 1000) * 1000 + offsetSeconds * 1000);
    const [run] = await insertScheduledRuns(db.pool, [
      {
        id: newId('run', scheduledTime),
        tenantId,
        jobId,
        scheduledTime,
        status,
        skipReason: status === 'skipped' ? 'misfire' : null,
        priority: 'normal',
      },
    ]);
    return run!;
  }

  const listed = async (id: string) =>
    (await db.pool.query('SELECT 1 FROM open_runs WHERE run_id = $1', [id])).rowCount === 1;

  const outcome = (
    run: { id: string; scheduled_time: Date },
    runStatus: AttemptOutcome['runStatus'],
    attempt = 1,
  ): AttemptOutcome => ({
    runId: run.id,
    scheduledTime: run.scheduled_time,
    attempt,
    runStatus,
    attemptStatus: runStatus === 'succeeded' ? 'succeeded' : 'failed',
    nextAttemptAt: runStatus === 'failed' ? new Date(Date.now() + 3_600_000) : null,
    httpStatus: runStatus === 'succeeded' ? 200 : 500,
    durationMs: 2,
    error: runStatus === 'succeeded' ? null : 'HTTP 500',
    responseSnippet: null,
    requestHeaders: null,
  });

  it('no index of runs refers to a column a completion changes (dead_at aside: only a dead run sets it)', async () => {
    const { rows } = await db.pool.query<{ indexname: string; indexdef: string }>(
      `SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'public' AND tablename = 'runs'`,
    );
    expect(rows.map((r) => r.indexname)).not.toContain('runs_open_idx');
    for (const { indexname, indexdef } of rows) {
      const words = new Set(indexdef.toLowerCase().match(/[a-z_]+/g));
      expect(
        COMPLETION_COLUMNS.filter((c) => words.has(c)),
        indexname,
      ).toEqual([]);
    }
  });

  it('a pending run is listed when inserted, a skipped one is not', async () => {
    const jobId = await newJob();
    const skipped = await scheduledRun(jobId, -3, 'skipped');
    const pending = await scheduledRun(jobId, -2);
    expect(await listed(pending.id)).toBe(true);
    expect(await listed(skipped.id)).toBe(false);
  });

  it('a completion is a HOT update and unlists a finished run; a retry stays listed', async () => {
    const jobId = await newJob();
    const [done, retried] = [await scheduledRun(jobId, -2), await scheduledRun(jobId, -1)];
    await claimRuns(db.pool, WORKER, 30_000, [done.id, retried.id], [done.scheduled_time, retried.scheduled_time]);
    const hot = await withTransaction(db.pool, async (tx) => {
      const recorded = await completeAttempts(tx, WORKER, [outcome(done, 'succeeded'), outcome(retried, 'failed')]);
      expect(recorded.map((r) => r.id).sort()).toEqual([done.id, retried.id].sort());
      const { rows } = await tx.query<{ updated: string; hot: string }>(
        `SELECT pg_stat_get_xact_tuples_updated(r.tableoid)::text AS updated,
                pg_stat_get_xact_tuples_hot_updated(r.tableoid)::text AS hot
           FROM runs r WHERE r.id = $1`,
        [done.id],
      );
      return rows[0]!;
    });
    // (the counts may include the claim's two updates, when this connection has not reported them yet)
    expect(Number(hot.updated)).toBeGreaterThanOrEqual(2);
    expect(hot.hot).toBe(hot.updated);
    expect(await listed(done.id)).toBe(false);
    expect(await listed(retried.id)).toBe(true);
    // the retry's attempt ends it for good
    await db.pool.query(`UPDATE runs SET next_attempt_at = now() - interval '1 second' WHERE id = $1`, [retried.id]);
    const [again] = await claimRuns(db.pool, WORKER, 30_000, [retried.id], [retried.scheduled_time]);
    expect(again?.attempt).toBe(2);
    await completeAttempts(db.pool, WORKER, [outcome(retried, 'dead', 2)]);
    expect(await listed(retried.id)).toBe(false);
  });

  it('the reaper unlists a run it marks dead and keeps one it sends to a retry', async () => {
    const jobId = await newJob();
    const [dead, retry] = [await scheduledRun(jobId, -2), await scheduledRun(jobId, -1)];
    await claimRuns(db.pool, WORKER, 30_000, [dead.id, retry.id], [dead.scheduled_time, retry.scheduled_time]);
    await expireLeases(db.pool, [dead.id, retry.id]);
    await withTransaction(db.pool, async (tx) => {
      const expired = await selectExpiredRuns(tx, 100);
      expect(expired.map((r) => r.id)).toEqual(expect.arrayContaining([dead.id, retry.id]));
      return failExpiredRuns(tx, [
        {
          id: dead.id,
          scheduledTime: dead.scheduled_time,
          attempt: 1,
          status: 'dead',
          nextAttemptAt: null,
          error: 'x',
        },
        {
          id: retry.id,
          scheduledTime: retry.scheduled_time,
          attempt: 1,
          status: 'failed',
          nextAttemptAt: new Date(Date.now() + 60_000),
          error: 'x',
        },
      ]);
    });
    expect(await listed(dead.id)).toBe(false);
    expect(await listed(retry.id)).toBe(true);
  });

  it('an overlap-skip job: a run finds the running one through open_runs and is skipped and unlisted', async () => {
    const jobId = await newJob('skip');
    const running = await scheduledRun(jobId, -3);
    await claimRuns(db.pool, WORKER, 30_000, [running.id], [running.scheduled_time]);
    const next = await scheduledRun(jobId, -2);
    const skipped = await withTransaction(db.pool, (tx) => skipOverlappingRuns(tx, [next.id], [next.scheduled_time]));
    expect(skipped).toEqual([next.id]);
    expect(await listed(next.id)).toBe(false);
    expect(await listed(running.id)).toBe(true);
    // once the running run is over, the next occurrence is claimed as usual
    await completeAttempts(db.pool, WORKER, [outcome(running, 'succeeded')]);
    const later = await scheduledRun(jobId, -1);
    expect(await withTransaction(db.pool, (tx) => skipOverlappingRuns(tx, [later.id], [later.scheduled_time]))).toEqual(
      [],
    );
  });

  it("a pull worker's reports and a cancel of a run claimed ahead unlist their runs", async () => {
    const jobId = await newJob();
    const [dead, succeeded, retried] = [
      await scheduledRun(jobId, -3),
      await scheduledRun(jobId, -2),
      await scheduledRun(jobId, -1),
    ];
    const all = [dead, succeeded, retried];
    expect(
      await claimPullRuns(
        db.pool,
        'pull-worker',
        30_000,
        all.map((r) => r.id),
        all.map((r) => r.scheduled_time),
      ),
    ).toHaveLength(3);
    const lease = (r: { id: string; scheduled_time: Date }) => ({
      runId: r.id,
      scheduledTime: r.scheduled_time,
      tenantId,
      attempt: 1,
      worker: 'pull-worker',
    });
    await finishPullAttempt(db.pool, lease(dead), {
      runStatus: 'dead',
      nextAttemptAt: null,
      error: 'boom',
      output: null,
    });
    await finishPullAttempt(db.pool, lease(retried), {
      runStatus: 'failed',
      nextAttemptAt: new Date(Date.now() + 60_000),
      error: 'again',
      output: null,
    });
    await finishPullSuccesses(db.pool, [{ lease: lease(succeeded), output: 'fine' }]);
    expect([await listed(dead.id), await listed(succeeded.id), await listed(retried.id)]).toEqual([false, false, true]);

    const ahead = await scheduledRun(jobId, 60);
    await claimRuns(db.pool, WORKER, 30_000, [ahead.id], [ahead.scheduled_time]);
    expect(await cancelClaimedAheadRuns(db.pool, tenantId, jobId, new Date())).toEqual([ahead.id]);
    expect(await listed(ahead.id)).toBe(false);
  });

  it("openRunOf finds a job's open runs and only those", async () => {
    const jobId = await newJob();
    const [finished, waiting] = [await scheduledRun(jobId, -2), await scheduledRun(jobId, -1)];
    await claimRuns(db.pool, WORKER, 30_000, [finished.id], [finished.scheduled_time]);
    await completeAttempts(db.pool, WORKER, [outcome(finished, 'succeeded')]);
    const other = await scheduledRun(await newJob(), -1);
    const { rows } = await db.pool.query<{ id: string }>(`SELECT r.id FROM runs r WHERE ${openRunOf('r', '$1')}`, [
      jobId,
    ]);
    expect(rows.map((r) => r.id)).toEqual([waiting.id]);
    expect(await listed(other.id)).toBe(true);
  });

  it('a recurring job whose schedule ended is shown completed once its last open run is over', async () => {
    const jobId = await newJob();
    const last = await scheduledRun(jobId, -1);
    await advanceSchedule(db.pool, [], [jobId]); // retired: stored completed at once
    const shown = async () =>
      (await db.pool.query(`SELECT ${jobStatusSql('j')} AS s FROM jobs j WHERE j.id = $1`, [jobId])).rows[0]?.s;
    expect(await shown()).toBe('active');
    await claimRuns(db.pool, WORKER, 30_000, [last.id], [last.scheduled_time]);
    expect(await shown()).toBe('active');
    await completeAttempts(db.pool, WORKER, [outcome(last, 'succeeded')]);
    expect(await shown()).toBe('completed');
  });

  it('the sweep removes rows of finished or vanished runs scheduled over 10 minutes ago, and no others', async () => {
    const jobId = await newJob();
    const [oldFinished, oldOpen, newFinished] = [
      await scheduledRun(jobId, -3600),
      await scheduledRun(jobId, -3599),
      await scheduledRun(jobId, -5),
    ];
    // enders that did not unlist (a process of the previous version)
    await db.pool.query(`UPDATE runs SET status = 'cancelled', finished_at = now() WHERE id = ANY($1)`, [
      [oldFinished.id, newFinished.id],
    ]);
    // a row whose run is gone (history trimmed)
    await db.pool.query(
      `INSERT INTO open_runs (job_id, scheduled_time, run_id) VALUES ($1, now() - interval '1 day', 'run_gone')`,
      [jobId],
    );
    expect(await sweepOpenRuns(db.pool, 1000)).toBe(2);
    expect(await listed(oldFinished.id)).toBe(false);
    expect(await listed('run_gone')).toBe(false);
    expect(await listed(oldOpen.id)).toBe(true);
    expect(await listed(newFinished.id)).toBe(true); // harmless until a later sweep
  });
});

describe('upgrade to open_runs', () => {
  const MIGRATION = '20261202050000_open_runs';

  it('lists the runs open at the upgrade and keys the dead letter by dead_at', async () => {
    const { name, url } = await createDatabaseMigratedBefore(MIGRATION, 'belfry_test_open');
    const client = new pg.Client({ connectionString: url });
    try {
      await client.connect();
      await client.query(`INSERT INTO tenants (id, name, slug) VALUES ('ten_up', 'up', 'up')`);
      const at = new Date(Math.floor(Date.now() / 1000) * 1000 - 60_000);
      for (const [id, status, finished] of [
        ['run_pending', 'pending', false],
        ['run_running', 'running', false],
        ['run_waiting', 'failed', false],
        ['run_dead', 'dead', true],
        ['run_done', 'succeeded', true],
      ] as const) {
        await client.query(
          `INSERT INTO runs (id, tenant_id, job_id, scheduled_time, status, attempt, trigger, finished_at, dead_at)
           VALUES ($1, 'ten_up', 'job_up', $2, $3, 1, 'manual', $4, $5)`,
          [id, at, status, finished ? at : null, status === 'dead' ? at : null],
        );
      }
      expect((await migrate(url, { partitions: 16 })).applied).toContain(MIGRATION);
      const { rows } = await client.query('SELECT run_id FROM open_runs ORDER BY run_id');
      expect(rows.map((r) => r.run_id)).toEqual(['run_pending', 'run_running', 'run_waiting']);
      const { rows: dead } = await client.query<{ indexdef: string }>(
        `SELECT indexdef FROM pg_indexes WHERE indexname = 'runs_dead_idx'`,
      );
      expect(dead[0]?.indexdef).toMatch(/\(tenant_id, dead_at DESC, id DESC\) WHERE \(dead_at IS NOT NULL\)/);
    } finally {
      await client.end().catch(() => {});
      await dropTestDatabase(name);
    }
  });
});
