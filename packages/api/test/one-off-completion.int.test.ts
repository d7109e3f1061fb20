// When a job whose schedule is exhausted becomes `completed` (contract §2: "a one-off whose run
// has finished / schedule exhausted"): never while a scheduled run of it is still pending,
// running or waiting for a retry — whichever schedule that run was made under — and as soon as
// the last one finishes. belfry_complete_finished_jobs checks only the occurrence at run_at for
// a one-off whose schedule never changed, and every scheduled run for any other job; these are
// the cases where a run of an earlier schedule is still open. The scheduler and workers are
// played by SQL here (materialize, then set the run's status as a completion would), and each
// finish calls completeFinishedJobs as the completion paths do.
import { completeFinishedJobs } from '@belfry/db';
import { newId } from '@belfry/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Job, type JobView } from '../src/index';
import { client, createHarness, type Harness, jobBody, makeTenant, type TestTenant } from './support';
import { LIST_OPEN_RUNS } from '../../../test/fixtures';

let h: Harness;
let t: TestTenant;
let api: ReturnType<typeof client>;

beforeAll(async () => {
  h = await createHarness();
  t = await makeTenant(h);
  api = client(h, t.key);
});
afterAll(() => h?.close());

const SECOND = 1000;
const HOUR = 3600 * SECOND;
/** A whole second, so times compare exactly after the round trip through the API. */
const at = (offsetMs: number) => new Date(Math.floor((Date.now() + offsetMs) / SECOND) * SECOND);

async function createOnce(runAt: Date): Promise<JobView> {
  const res = await api.post('/api/v1/jobs', {
    name: 'one-off',
    schedule: { type: 'once', runAt: runAt.toISOString() },
    target: { type: 'http', url: 'https://example.com/hook' },
  });
  expect(res.status).toBe(201);
  return Job.parse(res.body);
}

const statusOf = async (jobId: string) => Job.parse((await api.get(`/api/v1/jobs/${jobId}`)).body).status;

/** What the scheduler does when the occurrence comes due: clear the next occurrence, insert the run. */
async function materialize(jobId: string, scheduledTime: Date): Promise<string> {
  const id = newId('run', scheduledTime);
  await h.db.pool.query('UPDATE jobs SET next_run_at = NULL WHERE id = $1', [jobId]);
  await h.db.pool.query(
    `WITH r AS (
       INSERT INTO runs (id, tenant_id, job_id, scheduled_time, status, attempt, trigger)
       VALUES ($1, $2, $3, $4, 'pending', 0, 'schedule')
       RETURNING id, job_id, scheduled_time, finished_at
     ${LIST_OPEN_RUNS}`,
    [id, t.tenantId, jobId, scheduledTime],
  );
  return id;
}

/** Moves a run on (running, failed = waiting for a retry, or a final status), then completes as the engine would. */
async function setRun(runId: string, status: string): Promise<string[]> {
  const { rows } = await h.db.pool.query<{ job_id: string }>(
    `UPDATE runs SET status = $2, attempt = attempt + 1,
            next_attempt_at = CASE WHEN $2 = 'failed' THEN now() + interval '1 minute' END,
            finished_at = CASE WHEN $2 IN ('succeeded', 'dead', 'cancelled', 'skipped') THEN now() END
      WHERE id = $1 RETURNING job_id`,
    [runId, status],
  );
  expect(rows).toHaveLength(1);
  return completeFinishedJobs(h.db.pool, [rows[0]?.job_id as string]);
}

describe('a one-off', () => {
  it('whose run waits for a retry stays active; completed when that run ends', async () => {
    const runAt = at(-5 * SECOND);
    const job = await createOnce(runAt);
    const run = await materialize(job.id, runAt);
    expect(await completeFinishedJobs(h.db.pool, [job.id])).toEqual([]);
    expect(await setRun(run, 'running')).toEqual([]);
    expect(await setRun(run, 'failed')).toEqual([]);
    expect(await statusOf(job.id)).toBe('active');
    expect(await setRun(run, 'dead')).toEqual([job.id]);
    expect(await statusOf(job.id)).toBe('completed');
  });

  it('rescheduled while its run is running stays active until that run has finished too', async () => {
    const first = at(-5 * SECOND);
    const job = await createOnce(first);
    const old = await materialize(job.id, first);
    await setRun(old, 'running');
    const later = at(HOUR);
    const patched = await api.patch(`/api/v1/jobs/${job.id}`, {
      schedule: { type: 'once', runAt: later.toISOString() },
    });
    expect(patched.body).toMatchObject({ status: 'active', nextRunAt: later.toISOString() });

    const next = await materialize(job.id, later);
    expect(await setRun(next, 'succeeded')).toEqual([]);
    expect(await statusOf(job.id)).toBe('active');
    expect(await setRun(old, 'succeeded')).toEqual([job.id]);
    expect(await statusOf(job.id)).toBe('completed');
  });

  it('rescheduled while its run waits for a retry stays active until that run has ended', async () => {
    const first = at(-5 * SECOND);
    const job = await createOnce(first);
    const old = await materialize(job.id, first);
    await setRun(old, 'failed');
    const later = at(2 * HOUR);
    await api.patch(`/api/v1/jobs/${job.id}`, { schedule: { type: 'once', runAt: later.toISOString() } });
    // The retry is not a run of the new schedule, and PATCH leaves a due run to finish.
    expect((await h.db.pool.query('SELECT status FROM runs WHERE id = $1', [old])).rows[0]?.status).toBe('failed');

    const next = await materialize(job.id, later);
    expect(await setRun(next, 'succeeded')).toEqual([]);
    expect(await setRun(old, 'running')).toEqual([]);
    expect(await statusOf(job.id)).toBe('active');
    expect(await setRun(old, 'dead')).toEqual([job.id]);
  });

  it('paused while its run is running and resumed at another time stays active until both have finished', async () => {
    const first = at(-5 * SECOND);
    const job = await createOnce(first);
    const old = await materialize(job.id, first);
    await setRun(old, 'running');
    expect((await api.post(`/api/v1/jobs/${job.id}/pause`)).body.status).toBe('paused');
    const later = at(HOUR + 30 * SECOND);
    await api.patch(`/api/v1/jobs/${job.id}`, { schedule: { type: 'once', runAt: later.toISOString() } });
    const resumed = await api.post(`/api/v1/jobs/${job.id}/resume`);
    expect(resumed.body).toMatchObject({ status: 'active', nextRunAt: later.toISOString() });

    const next = await materialize(job.id, later);
    expect(await setRun(next, 'succeeded')).toEqual([]);
    expect(await statusOf(job.id)).toBe('active');
    expect(await setRun(old, 'succeeded')).toEqual([job.id]);
    expect(await statusOf(job.id)).toBe('completed');
  });

  it('paused and resumed while its run is running stays active; completed when the run ends', async () => {
    const runAt = at(-5 * SECOND);
    const job = await createOnce(runAt);
    const run = await materialize(job.id, runAt);
    await setRun(run, 'running');
    await api.post(`/api/v1/jobs/${job.id}/pause`);
    expect((await api.post(`/api/v1/jobs/${job.id}/resume`)).body.status).toBe('active');
    // Resumed with its occurrence already run, it is stored completed and shown active while
    // that run is open (jobStatusSql): its ending has nothing left to write.
    expect((await h.db.pool.query('SELECT status FROM jobs WHERE id = $1', [job.id])).rows[0]?.status).toBe(
      'completed',
    );
    expect(await setRun(run, 'succeeded')).toEqual([]);
    expect(await statusOf(job.id)).toBe('completed');
  });

  it('whose run_at has microseconds (written by hand) finds its run at the millisecond the engine used', async () => {
    const runAt = at(-5 * SECOND);
    const job = await createOnce(runAt);
    await h.db.pool.query(`UPDATE jobs SET run_at = run_at + interval '300 microseconds' WHERE id = $1`, [job.id]);
    const run = await materialize(job.id, runAt);
    expect(await setRun(run, 'running')).toEqual([]);
    expect(await statusOf(job.id)).toBe('active');
    expect(await setRun(run, 'succeeded')).toEqual([job.id]);
  });

  it('whose manual run finishes before its occurrence has come stays active', async () => {
    const job = await createOnce(at(HOUR));
    const manual = newId('run');
    await h.db.pool.query(
      `WITH r AS (
         INSERT INTO runs (id, tenant_id, job_id, scheduled_time, status, attempt, trigger)
         VALUES ($1, $2, $3, now(), 'running', 1, 'manual')
         RETURNING id, job_id, scheduled_time, finished_at
       ${LIST_OPEN_RUNS}`,
      [manual, t.tenantId, job.id],
    );
    expect(await setRun(manual, 'succeeded')).toEqual([]);
    expect(await statusOf(job.id)).toBe('active');
  });

  it('manual runs do not keep it active', async () => {
    const runAt = at(-5 * SECOND);
    const job = await createOnce(runAt);
    const run = await materialize(job.id, runAt);
    await h.db.pool.query(
      `WITH r AS (
         INSERT INTO runs (id, tenant_id, job_id, scheduled_time, status, attempt, trigger)
         VALUES ($1, $2, $3, now(), 'running', 1, 'manual')
         RETURNING id, job_id, scheduled_time, finished_at
       ${LIST_OPEN_RUNS}`,
      [newId('run'), t.tenantId, job.id],
    );
    expect(await setRun(run, 'succeeded')).toEqual([job.id]);
  });
});

describe('a recurring job whose schedule ended', () => {
  it('is completed only once no scheduled run of it, of any day, is still open', async () => {
    const res = await api.post('/api/v1/jobs', jobBody({ schedule: { type: 'cron', expression: '*/5 * * * *' } }));
    const jobId = Job.parse(res.body).id;
    // Two occurrences a day apart (different partitions of runs), then the schedule is retired.
    const yesterday = await materialize(jobId, at(-24 * HOUR));
    const today = await materialize(jobId, at(-10 * SECOND));
    await setRun(yesterday, 'failed');
    expect(await setRun(today, 'succeeded')).toEqual([]);
    expect(await statusOf(jobId)).toBe('active');
    expect(await setRun(yesterday, 'succeeded')).toEqual([jobId]);
    expect(await statusOf(jobId)).toBe('completed');
  });
});

describe('completing while another transaction changes the job', () => {
  /** Resolves once some session of this database waits for a lock held by `holder`. */
  async function lockWaitBehind(holder: { query: typeof h.db.pool.query }): Promise<void> {
    const { rows } = await holder.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    for (;;) {
      const waiting = await h.db.pool.query(
        `SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'
            AND $1 = ANY(pg_blocking_pids(pid))`,
        [rows[0]?.pid],
      );
      if (waiting.rowCount) return;
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  /** Finishes the job's run while `change` holds the job row; answers what the completion did. */
  async function finishDuring(change: string): Promise<{ jobId: string; completed: string[] }> {
    const runAt = at(-5 * SECOND);
    const job = await createOnce(runAt);
    const run = await materialize(job.id, runAt);
    await h.db.pool.query(`UPDATE runs SET status = 'succeeded', finished_at = now() WHERE id = $1`, [run]);
    const other = await h.db.pool.connect();
    try {
      await other.query('BEGIN');
      await other.query(change, [job.id]);
      const completion = completeFinishedJobs(h.db.pool, [job.id]);
      await lockWaitBehind(other);
      await other.query('COMMIT');
      return { jobId: job.id, completed: await completion };
    } finally {
      other.release();
    }
  }

  it('sees a schedule entry that the change gave the job, and leaves it active', async () => {
    const { jobId, completed } = await finishDuring(
      `UPDATE jobs SET version = version + 1, updated_at = now(), next_run_at = now() + interval '1 hour' WHERE id = $1`,
    );
    expect(completed).toEqual([]);
    expect(await statusOf(jobId)).toBe('active');
  });

  it('completes the row as the change left it (a new row version)', async () => {
    const { jobId, completed } = await finishDuring(`UPDATE jobs SET name = 'renamed' WHERE id = $1`);
    expect(completed).toEqual([jobId]);
    const { rows } = await h.db.pool.query('SELECT name, status FROM jobs WHERE id = $1', [jobId]);
    expect(rows[0]).toEqual({ name: 'renamed', status: 'completed' });
  });
});
