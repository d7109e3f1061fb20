// jitterSeconds on the API: validation bounds, defaults, PATCH, and the run's dueAt (the
// scheduled time plus the job's offset for scheduled runs; the scheduled time otherwise).
import { dueTime, newId } from '@belfry/core';
import { insertScheduledRuns } from '@belfry/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, counts, createHarness, type Harness, jobBody, makeTenant, type TestTenant } from './support';

let h: Harness;
let t: TestTenant;
let api: ReturnType<typeof client>;

beforeAll(async () => {
  h = await createHarness();
  t = await makeTenant(h);
  api = client(h, t.key);
});
afterAll(() => h.close());

describe('jitterSeconds', () => {
  it('defaults to 0, accepts 0..3600 and can be changed', async () => {
    const plain = await api.post('/api/v1/jobs', jobBody());
    expect(plain.status).toBe(201);
    expect(plain.body.jitterSeconds).toBe(0);
    const max = await api.post('/api/v1/jobs', jobBody({ jitterSeconds: 3600 }));
    expect(max.status).toBe(201);
    expect(max.body.jitterSeconds).toBe(3600);
    const patched = await api.patch(`/api/v1/jobs/${max.body.id}`, { jitterSeconds: 60 });
    expect(patched.status).toBe(200);
    expect(patched.body.jitterSeconds).toBe(60);
    expect((await api.get(`/api/v1/jobs/${max.body.id}`)).body.jitterSeconds).toBe(60);
  });

  it('refuses values outside 0..3600, fractions and strings, naming the field', async () => {
    const before = await counts(h);
    for (const bad of [-1, 3601, 1.5, '60', null]) {
      const res = await api.post('/api/v1/jobs', jobBody({ jitterSeconds: bad }));
      expect(res.status, String(bad)).toBe(400);
      expect(res.body.errors.map((e: { path: string }) => e.path)).toEqual(['jitterSeconds']);
    }
    const batch = await api.post('/api/v1/jobs/batch', { jobs: [jobBody(), jobBody({ jitterSeconds: 7200 })] });
    expect(batch.status).toBe(400);
    expect(batch.body.errors).toEqual([{ path: 'jobs.1.jitterSeconds', message: 'must be 0 to 3600' }]);
    const job = await api.post('/api/v1/jobs', jobBody());
    const patch = await api.patch(`/api/v1/jobs/${job.body.id}`, { jitterSeconds: -5 });
    expect(patch.status).toBe(400);
    expect((await counts(h)).jobs).toBe(before.jobs + 1);
  });

  it("answers a scheduled run's dueAt (scheduled time plus offset); a manual run is due when requested", async () => {
    const job = await api.post(
      '/api/v1/jobs',
      jobBody({ schedule: { type: 'interval', everySeconds: 3600 }, jitterSeconds: 600 }),
    );
    const scheduledTime = new Date(Math.ceil(Date.now() / 1000) * 1000 + 60_000);
    const due = dueTime(job.body.id, scheduledTime, 600);
    const [run] = await insertScheduledRuns(h.db.pool, [
      {
        id: newId('run', scheduledTime),
        tenantId: t.tenantId,
        jobId: job.body.id,
        scheduledTime,
        dueAt: due,
        status: 'pending',
        skipReason: null,
        priority: 'normal',
      },
    ]);
    const got = await api.get(`/api/v1/runs/${run?.id}`);
    expect(got.status).toBe(200);
    expect(got.body.scheduledTime).toBe(scheduledTime.toISOString());
    expect(got.body.dueAt).toBe(due.toISOString());
    expect(due.getTime() - scheduledTime.getTime()).toBeLessThan(600_000);
    const list = await api.get(`/api/v1/jobs/${job.body.id}/runs`);
    expect(list.body.data[0].dueAt).toBe(due.toISOString());

    const manual = await api.post(`/api/v1/jobs/${job.body.id}/trigger`);
    expect(manual.status).toBe(201);
    expect(manual.body.dueAt).toBe(manual.body.scheduledTime);
  });

  it('the schedule preview answers when each occurrence of a job starts, given its jitter', async () => {
    const jobId = 'job_01KB3Y8J2Q7Z9V4N6M5X0C1R2T';
    const from = '2026-12-01T00:00:00Z';
    const res = await api.get(
      `/api/v1/schedule/preview?expression=0+7+*+*+*&count=3&from=${from}&jitterSeconds=60&jobId=${jobId}`,
    );
    expect(res.status).toBe(200);
    expect(res.body.times).toHaveLength(3);
    expect(res.body.dueTimes).toEqual(res.body.times.map((t: string) => dueTime(jobId, new Date(t), 60).toISOString()));
    const plain = await api.get(`/api/v1/schedule/preview?expression=0+7+*+*+*&count=3&from=${from}`);
    expect(plain.body).toEqual({ times: res.body.times });
    for (const q of ['jitterSeconds=60', `jobId=${jobId}`, `jitterSeconds=3601&jobId=${jobId}`]) {
      const bad = await api.get(`/api/v1/schedule/preview?expression=0+7+*+*+*&${q}`);
      expect(bad.status, q).toBe(400);
    }
  });
});
