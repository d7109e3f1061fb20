// A one-off in flight: the scheduler stores the job `completed` in the update that materializes
// its occurrence (advanceSchedule), so that the run's ending writes nothing to the job; every
// reader shows it `active` while a scheduled run of it is open (jobStatusSql) — the job itself,
// the list's status filters (the dashboard's counts: src/trpc/dashboard.int.test.ts) — and
// `completed` the moment that run ends.
// The scheduler's transaction is played by the same calls it makes (insert the run, list it
// open, advanceSchedule); the run's ending by the SQL a completion runs (finished, unlisted).
import { advanceSchedule } from '@belfry/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setRunStatus } from '../../../test/fixtures';
import { Job, type JobView } from '../src/index';
import { client, createHarness, type Harness, insertRun, makeTenant, type TestTenant } from './support';

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

async function createOnce(runAt: Date, name = 'one-off'): Promise<JobView> {
  const res = await api.post('/api/v1/jobs', {
    name,
    schedule: { type: 'once', runAt: runAt.toISOString() },
    target: { type: 'http', url: 'https://example.com/hook' },
  });
  expect(res.status).toBe(201);
  return Job.parse(res.body);
}

/** What the scheduler does when the occurrence comes within its lookahead: run, open_runs, job. */
async function materialize(jobId: string, scheduledTime: Date, trigger = 'schedule'): Promise<string> {
  const id = await insertRun(h, {
    tenantId: t.tenantId,
    jobId,
    status: 'pending',
    scheduledTime,
    finishedAt: null,
    trigger,
  });
  if (trigger === 'schedule') await advanceSchedule(h.db.pool, [], [jobId]);
  return id;
}

/** Moves a run on as a worker would; a final status ends it as a completion does (unlisted). */
async function setRun(runId: string, status: string): Promise<void> {
  const final = ['succeeded', 'dead', 'cancelled', 'skipped'].includes(status);
  expect(await setRunStatus(h.db.pool, runId, status)).toBe(final ? 1 : 0);
}

const shown = async (jobId: string) => Job.parse((await api.get(`/api/v1/jobs/${jobId}`)).body);
const stored = async (jobId: string) =>
  (
    await h.db.pool.query<{ status: string; xmin: string }>('SELECT status, xmin::text FROM jobs WHERE id = $1', [
      jobId,
    ])
  ).rows[0];
const listed = async (status?: string): Promise<Map<string, string>> => {
  const res = await api.get(`/api/v1/jobs?limit=500${status ? `&status=${status}` : ''}`);
  expect(res.status).toBe(200);
  return new Map((res.body.data as JobView[]).map((j) => [j.id, j.status]));
};

describe('a one-off whose occurrence was materialized', () => {
  it('is stored completed, shown active with its run as nextRunAt until the run ends; then completed, the job unwritten', async () => {
    const runAt = at(HOUR);
    const job = await createOnce(runAt);
    await materialize(job.id, runAt);
    const version = await stored(job.id);
    expect(version?.status).toBe('completed');
    expect(await shown(job.id)).toMatchObject({ status: 'active', nextRunAt: runAt.toISOString() });
    expect((await listed()).get(job.id)).toBe('active');
    expect((await listed('active')).get(job.id)).toBe('active');
    expect((await listed('completed')).has(job.id)).toBe(false);
  });

  it('stays active while its run runs and waits for a retry, and is completed when it ends, whatever the ending', async () => {
    for (const ending of ['succeeded', 'dead', 'cancelled']) {
      const runAt = at(-5 * SECOND);
      const job = await createOnce(runAt);
      const run = await materialize(job.id, runAt);
      const before = await stored(job.id);
      await setRun(run, 'running');
      expect((await shown(job.id)).status).toBe('active');
      await setRun(run, 'failed');
      expect(await shown(job.id)).toMatchObject({ status: 'active', nextRunAt: null });
      await setRun(run, ending);
      expect(await shown(job.id)).toMatchObject({ status: 'completed', nextRunAt: null });
      expect(await stored(job.id)).toEqual(before); // the same row version: nothing written
      expect((await listed('completed')).get(job.id)).toBe('completed');
      expect((await listed('active')).has(job.id)).toBe(false);
      expect((await api.post(`/api/v1/jobs/${job.id}/pause`)).status).toBe(409);
    }
  });

  it('is not kept active by an open manual run', async () => {
    const runAt = at(-5 * SECOND);
    const job = await createOnce(runAt);
    await setRun(await materialize(job.id, runAt), 'succeeded');
    await materialize(job.id, new Date(), 'manual');
    expect((await shown(job.id)).status).toBe('completed');
    expect((await listed('active')).has(job.id)).toBe(false);
    expect((await listed('completed')).has(job.id)).toBe(true);
  });

  it('can be paused while its run waits (the run is cancelled); resumed, it is completed', async () => {
    const runAt = at(-5 * SECOND);
    const job = await createOnce(runAt);
    const run = await materialize(job.id, runAt);
    const paused = await api.post(`/api/v1/jobs/${job.id}/pause`);
    expect(paused.status).toBe(200);
    expect(paused.body.status).toBe('paused');
    expect((await h.db.pool.query('SELECT status FROM runs WHERE id = $1', [run])).rows[0]?.status).toBe('cancelled');
    const resumed = await api.post(`/api/v1/jobs/${job.id}/resume`);
    expect(resumed.body).toMatchObject({ status: 'completed', nextRunAt: null });
  });

  it('paused while its run runs (its target call begun) is paused; resumed, active until that run ends', async () => {
    const runAt = at(-5 * SECOND);
    const job = await createOnce(runAt);
    const run = await materialize(job.id, runAt);
    await setRun(run, 'running');
    expect((await api.post(`/api/v1/jobs/${job.id}/pause`)).body.status).toBe('paused');
    expect((await h.db.pool.query('SELECT status FROM runs WHERE id = $1', [run])).rows[0]?.status).toBe('running');
    expect((await api.post(`/api/v1/jobs/${job.id}/resume`)).body).toMatchObject({ status: 'active', nextRunAt: null });
    await setRun(run, 'succeeded');
    expect((await shown(job.id)).status).toBe('completed');
  });

  it('rescheduled while its run runs is active at its new time, and completed once both runs have ended', async () => {
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
    await setRun(next, 'succeeded');
    expect((await shown(job.id)).status).toBe('active'); // the first run still runs
    await setRun(old, 'succeeded');
    expect((await shown(job.id)).status).toBe('completed');
  });

  it('rescheduled while its run waits for a retry stays active until that run has ended too', async () => {
    const first = at(-5 * SECOND);
    const job = await createOnce(first);
    const old = await materialize(job.id, first);
    await setRun(old, 'failed');
    const later = at(2 * HOUR);
    await api.patch(`/api/v1/jobs/${job.id}`, { schedule: { type: 'once', runAt: later.toISOString() } });
    // The retry is not a run of the new schedule, and PATCH leaves a due run to finish.
    expect((await h.db.pool.query('SELECT status FROM runs WHERE id = $1', [old])).rows[0]?.status).toBe('failed');
    const next = await materialize(job.id, later);
    await setRun(next, 'succeeded');
    await setRun(old, 'running');
    expect((await shown(job.id)).status).toBe('active');
    await setRun(old, 'dead');
    expect((await shown(job.id)).status).toBe('completed');
  });

  it('paused while its run runs and resumed at another time stays active until both have finished', async () => {
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
    await setRun(next, 'succeeded');
    expect((await shown(job.id)).status).toBe('active');
    await setRun(old, 'succeeded');
    expect((await shown(job.id)).status).toBe('completed');
  });

  it('whose manual run finishes before its occurrence has come stays active with its next run', async () => {
    const runAt = at(HOUR);
    const job = await createOnce(runAt);
    await setRun(await materialize(job.id, new Date(), 'manual'), 'succeeded');
    expect(await shown(job.id)).toMatchObject({ status: 'active', nextRunAt: runAt.toISOString() });
    expect(await stored(job.id)).toMatchObject({ status: 'active' });
  });
});

describe('a recurring job whose schedule ended', () => {
  it('is shown active while a scheduled run of it, of any day, is open; completed once none is', async () => {
    const res = await api.post('/api/v1/jobs', {
      name: 'retired',
      schedule: { type: 'cron', expression: '*/5 * * * *' },
      target: { type: 'http', url: 'https://example.com/hook' },
    });
    const jobId = Job.parse(res.body).id;
    // Two occurrences a day apart (different partitions of runs), then the schedule is retired.
    const yesterday = await materialize(jobId, at(-24 * HOUR));
    const today = await materialize(jobId, at(-10 * SECOND));
    expect((await stored(jobId))?.status).toBe('completed');
    await setRun(yesterday, 'failed');
    await setRun(today, 'succeeded');
    expect((await shown(jobId)).status).toBe('active');
    await setRun(yesterday, 'succeeded');
    expect((await shown(jobId)).status).toBe('completed');
  });
});
