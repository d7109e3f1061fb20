// A 'running' attempt row left by a process of the version that opened attempts at their claim
// (one that claimed after the migration attempt_row_at_end, or a binary rolled back and
// upgraded again): whatever ends that attempt — an engine completion, the reaper, a pull
// worker's report, a pause cancelling runs claimed ahead — closes that row with the outcome
// instead of failing on its primary key. Each run ends with exactly one row for the attempt.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '@belfry/core';
import { createTestDatabase, type TestDatabase } from '../../../test/db';
import { insertJob, insertTenant } from '../../../test/fixtures';
import {
  cancelClaimedAheadRuns,
  completeAttempts,
  failExpiredRuns,
  finishPullAttempt,
  finishPullSuccesses,
} from '../src/index';
import { succeededOutcome } from './outcomes';

const WORKER = 'worker-old';

describe("ending an attempt whose 'running' row a previous version left", () => {
  let db: TestDatabase;
  let tenantId: string;
  beforeAll(async () => {
    db = await createTestDatabase();
    tenantId = (await insertTenant(db.pool)).id;
  });
  afterAll(() => db.destroy());

  /**
   * A running run in its second attempt as the old claim left it: the first attempt's row
   * (failed), a 'running' row for the second, no attempt_started_at. `due` in seconds from now,
   * `lease` the lease's expiry as SQL.
   */
  async function leftover(o: { due?: number; lease?: string; trigger?: string } = {}) {
    const at = new Date(Math.floor(Date.now() / 1000) * 1000 + (o.due ?? -60) * 1000);
    const job = await insertJob(db.pool, tenantId, {
      schedule: { type: 'cron', expression: '0 0 1 1 *', timezone: 'UTC' },
      url: 'http://127.0.0.1:9/hook',
      partitions: db.partitions,
    });
    const id = newId('run', at);
    await db.pool.query(
      `INSERT INTO runs (id, tenant_id, job_id, scheduled_time, status, attempt, trigger, worker_id, lease_expires_at,
                         started_at)
       VALUES ($1, $2, $3, $4, 'running', 2, $5, $6, ${o.lease ?? "now() + interval '1 minute'"}, $4)`,
      [id, tenantId, job.id, at, o.trigger ?? 'manual', WORKER],
    );
    // open at the upgrade to open_runs (migration 20261202050000), which lists it
    await db.pool.query('INSERT INTO open_runs (job_id, scheduled_time, run_id) VALUES ($1, $2, $3)', [job.id, at, id]);
    await db.pool.query(
      `INSERT INTO run_attempts (run_id, scheduled_time, tenant_id, job_id, attempt, worker_id, status, started_at,
                                 finished_at, error)
       VALUES ($1, $2, $3, $4, 1, $5, 'failed', $2, $2, 'HTTP 503'),
              ($1, $2, $3, $4, 2, $5, 'running', $6, NULL, NULL)`,
      [id, at, tenantId, job.id, WORKER, new Date(at.getTime() + 5000)],
    );
    return { id, at, jobId: job.id, secondStart: new Date(at.getTime() + 5000) };
  }

  async function attempts(id: string) {
    const { rows } = await db.pool.query(
      `SELECT attempt, status, worker_id, started_at, finished_at IS NOT NULL AS ended, error, http_status
         FROM run_attempt_history WHERE run_id = $1 ORDER BY attempt`,
      [id],
    );
    return rows;
  }

  it('an engine completion closes it (a run twice in one batch writes it once)', async () => {
    const run = await leftover();
    const other = await leftover();
    const outcome = (id: string, at: Date) =>
      succeededOutcome({ id, scheduled_time: at, attempt: 2 }, { durationMs: 7, responseSnippet: 'ok' });
    const done = await completeAttempts(db.pool, WORKER, [
      outcome(run.id, run.at),
      outcome(other.id, other.at),
      outcome(run.id, run.at),
    ]);
    expect(done.map((r) => r.id).sort()).toEqual([run.id, other.id].sort());
    for (const r of [run, other])
      expect((await attempts(r.id))[1]).toEqual({
        attempt: 2,
        status: 'succeeded',
        worker_id: WORKER,
        started_at: r.secondStart,
        ended: true,
        error: null,
        http_status: 200,
      });
    expect(await attempts(run.id)).toHaveLength(2);
  });

  it('the reaper closes it, and the rest of its batch is reaped', async () => {
    const run = await leftover({ lease: "now() - interval '1 second'" });
    const plain = await leftover({ lease: "now() - interval '1 second'" });
    await db.pool.query('DELETE FROM run_attempts WHERE run_id = $1 AND attempt = 2', [plain.id]);
    const verdict = (id: string, at: Date) => ({
      id,
      scheduledTime: at,
      attempt: 2,
      status: 'dead' as const,
      nextAttemptAt: null,
      error: 'lease expired',
    });
    expect((await failExpiredRuns(db.pool, [verdict(run.id, run.at), verdict(plain.id, plain.at)])).sort()).toEqual(
      [run.id, plain.id].sort(),
    );
    expect((await attempts(run.id))[1]).toMatchObject({
      attempt: 2,
      status: 'failed',
      started_at: run.secondStart,
      ended: true,
      error: 'lease expired',
    });
    expect((await attempts(plain.id))[1]).toMatchObject({ attempt: 2, status: 'failed', error: 'lease expired' });
    expect(await attempts(run.id)).toHaveLength(2);
  });

  it("a pull worker's failure closes it, and the answer shows it", async () => {
    const run = await leftover();
    const rows = await finishPullAttempt(
      db.pool,
      { runId: run.id, scheduledTime: run.at, tenantId, attempt: 2, worker: WORKER },
      { runStatus: 'dead', nextAttemptAt: null, error: 'boom', output: 'trace' },
    );
    expect(rows.map((r) => [r.a_attempt, r.a_status, r.a_started_at, r.a_error])).toEqual([
      [1, 'failed', run.at, 'HTTP 503'],
      [2, 'failed', run.secondStart, 'boom'],
    ]);
    expect(rows[1]?.a_duration_ms).toBeGreaterThanOrEqual(5000);
    expect(await attempts(run.id)).toHaveLength(2);
  });

  it("a pull worker's success closes it, and the answer shows it", async () => {
    const run = await leftover();
    const answer = await finishPullSuccesses(db.pool, [
      { lease: { runId: run.id, scheduledTime: run.at, tenantId, attempt: 2, worker: WORKER }, output: 'fine' },
    ]);
    expect(answer.get(run.id)?.map((r) => [r.a_attempt, r.a_status, r.a_started_at, r.a_response_snippet])).toEqual([
      [1, 'failed', run.at, null],
      [2, 'succeeded', run.secondStart, 'fine'],
    ]);
    expect(await attempts(run.id)).toHaveLength(2);
  });

  it('cancelling runs claimed ahead closes it, never starting after its end', async () => {
    const run = await leftover({ due: 60, trigger: 'schedule' });
    const cancelledAt = new Date();
    expect(await cancelClaimedAheadRuns(db.pool, tenantId, run.jobId, cancelledAt)).toEqual([run.id]);
    const rows = await attempts(run.id);
    expect(rows).toHaveLength(2);
    expect(rows[1]).toMatchObject({
      attempt: 2,
      status: 'cancelled',
      ended: true,
      error: 'cancelled before it started',
    });
    // the old claim opened it at its due time, after the cancel
    expect((rows[1].started_at as Date).getTime()).toBeLessThanOrEqual(cancelledAt.getTime());
  });
});
