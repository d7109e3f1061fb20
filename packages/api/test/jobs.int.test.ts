// Contract tests of /api/v1/jobs through the real router: status codes, exact shapes,
// pagination, filters, pause/resume/delete and the schedule entry the engine relies on.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nextFireTime, partitionOf } from '@belfry/core';
import { Job, JobPage } from '../src/index';
import { call, client, createHarness, type Harness, insertRun, jobBody, makeTenant, type TestTenant } from './support';

let h: Harness;
let t: TestTenant;
let api: ReturnType<typeof client>;

beforeAll(async () => {
  h = await createHarness();
  t = await makeTenant(h);
  api = client(h, t.key);
});
afterAll(() => h.close());

async function entryOf(jobId: string) {
  // The entry is the job's own next_run_at (set while it has a next occurrence).
  const { rows } = await h.db.pool.query(
    'SELECT tenant_id, partition, next_run_at FROM jobs WHERE id = $1 AND next_run_at IS NOT NULL',
    [jobId],
  );
  return rows[0] as { tenant_id: string; partition: number; next_run_at: Date } | undefined;
}

describe('POST /api/v1/jobs', () => {
  it('creates a job: 201, Location, the contract shape with defaults, and a schedule entry', async () => {
    const before = Date.now();
    const res = await api.post('/api/v1/jobs', jobBody());
    expect(res.status).toBe(201);
    expect(res.headers.get('content-type')).toBe('application/json');
    const job = Job.parse(res.body);
    expect(res.headers.get('location')).toBe(`/api/v1/jobs/${job.id}`);
    expect(job).toMatchObject({
      name: 'daily-report',
      schedule: { type: 'cron', expression: '0 7 * * *', timezone: 'Europe/Berlin' },
      target: { type: 'http', url: 'https://example.com/hook', method: 'POST', headers: { 'x-team': 'billing' } },
      payload: { any: 'json' },
      retry: { maxAttempts: 5, initialDelaySeconds: 10, maxDelaySeconds: 3600 },
      timeoutSeconds: 30,
      priority: 'normal',
      misfirePolicy: 'run_once',
      overlapPolicy: 'allow',
      status: 'active',
    });
    expect(Object.keys(job).sort()).toEqual(
      [
        'id',
        'name',
        'schedule',
        'target',
        'payload',
        'retry',
        'timeoutSeconds',
        'priority',
        'misfirePolicy',
        'overlapPolicy',
        'jitterSeconds',
        'status',
        'nextRunAt',
        'createdAt',
        'updatedAt',
      ].sort(),
    );
    expect(job.id).toMatch(/^job_[0-9A-Z]{26}$/);
    const expected = nextFireTime(
      { type: 'cron', expression: '0 7 * * *', timezone: 'Europe/Berlin' },
      new Date(before),
    );
    expect(job.nextRunAt).toBe(expected?.toISOString());
    const entry = await entryOf(job.id);
    expect(entry?.next_run_at.toISOString()).toBe(job.nextRunAt);
    expect(entry?.tenant_id).toBe(t.tenantId);
    expect(entry?.partition).toBe(partitionOf(job.id, h.deps.partitions));
  });

  it('defaults target.method to POST, headers to {}, payload to null, timezone to UTC', async () => {
    const res = await api.post('/api/v1/jobs', {
      name: 'minimal',
      schedule: { type: 'cron', expression: '*/5 * * * *' },
      target: { type: 'http', url: 'http://example.com/x' },
    });
    expect(res.status).toBe(201);
    expect(res.body.target).toEqual({ type: 'http', url: 'http://example.com/x', method: 'POST', headers: {} });
    expect(res.body.payload).toBeNull();
    expect(res.body.schedule.timezone).toBe('UTC');
    // Stored without the target's defaults (they are filled in when read), answered whole by GET too.
    const { rows } = await h.db.pool.query('SELECT target FROM jobs WHERE id = $1', [res.body.id]);
    expect(rows[0]?.target).toEqual({ type: 'http', url: 'http://example.com/x' });
    expect((await api.get(`/api/v1/jobs/${res.body.id}`)).body).toEqual(res.body);
  });

  it('anchors an interval at creation: next run is created + everySeconds', async () => {
    const res = await api.post('/api/v1/jobs', jobBody({ schedule: { type: 'interval', everySeconds: 300 } }));
    expect(res.status).toBe(201);
    expect(res.body.schedule).toEqual({ type: 'interval', everySeconds: 300 });
    expect(Date.parse(res.body.nextRunAt) - Date.parse(res.body.createdAt)).toBe(300_000);
  });

  it('stores an anchor for intervals only (cron and one-off jobs never read it)', async () => {
    const anchorOf = async (id: string) =>
      (await h.db.pool.query('SELECT anchor_at FROM jobs WHERE id = $1', [id])).rows[0]?.anchor_at as Date | null;
    const interval = await api.post('/api/v1/jobs', jobBody({ schedule: { type: 'interval', everySeconds: 60 } }));
    expect((await anchorOf(interval.body.id))?.toISOString()).toBe(interval.body.createdAt);
    const cron = await api.post('/api/v1/jobs', jobBody());
    expect(await anchorOf(cron.body.id)).toBeNull();
    const changed = await api.patch(`/api/v1/jobs/${interval.body.id}`, {
      schedule: { type: 'cron', expression: '0 * * * *' },
    });
    expect(changed.status).toBe(200);
    expect(await anchorOf(interval.body.id)).toBeNull();
    const back = await api.patch(`/api/v1/jobs/${cron.body.id}`, { schedule: { type: 'interval', everySeconds: 120 } });
    expect(Date.parse(back.body.nextRunAt) - Date.parse(back.body.updatedAt)).toBe(120_000);
    expect((await anchorOf(cron.body.id))?.toISOString()).toBe(back.body.updatedAt);
  });

  it('keeps a one-off runAt even when it is in the past (the scheduler runs it at once)', async () => {
    const runAt = new Date(Date.now() - 60_000).toISOString();
    const res = await api.post('/api/v1/jobs', jobBody({ schedule: { type: 'once', runAt } }));
    expect(res.status).toBe(201);
    expect(res.body.status).toBe('active');
    expect(res.body.nextRunAt).toBe(runAt);
    expect((await entryOf(res.body.id))?.next_run_at.toISOString()).toBe(runAt);
  });

  it('normalises a runAt with an offset to UTC', async () => {
    const res = await api.post(
      '/api/v1/jobs',
      jobBody({ schedule: { type: 'once', runAt: '2030-12-01T08:00:00+01:00' } }),
    );
    expect(res.body.schedule).toEqual({ type: 'once', runAt: '2030-12-01T07:00:00.000Z' });
  });

  it('accepts a 6-field cron expression (seconds first)', async () => {
    const res = await api.post('/api/v1/jobs', jobBody({ schedule: { type: 'cron', expression: '30 0 7 * * *' } }));
    expect(res.status).toBe(201);
    expect(new Date(res.body.nextRunAt).getUTCSeconds()).toBe(30);
  });
});

describe('GET /api/v1/jobs', () => {
  let lister: ReturnType<typeof client>;
  const created: string[] = [];

  beforeAll(async () => {
    const tenant = await makeTenant(h);
    lister = client(h, tenant.key);
    for (let i = 0; i < 120; i++) {
      const res = await lister.post('/api/v1/jobs', jobBody({ name: i % 3 === 0 ? `billing-${i}` : `report_${i}` }));
      created.push(res.body.id);
    }
  });

  it('walks 120 jobs in pages of 50, newest first, without duplicates or gaps', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res = await lister.get(`/api/v1/jobs?limit=50${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.status).toBe(200);
      const page = JobPage.parse(res.body);
      seen.push(...page.data.map((j) => j.id));
      cursor = page.nextCursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toHaveLength(120);
    expect(new Set(seen).size).toBe(120);
    expect(new Set(seen)).toEqual(new Set(created));
    expect(seen[0]).toBe(created[created.length - 1]);
  });

  it('defaults to 50 per page and answers nextCursor null on the last page', async () => {
    const first = await lister.get('/api/v1/jobs');
    expect(first.body.data).toHaveLength(50);
    const all = await lister.get('/api/v1/jobs?limit=500');
    expect(all.body.data).toHaveLength(120);
    expect(all.body.nextCursor).toBeNull();
  });

  it('filters by name prefix (LIKE wildcards are literal) and by status', async () => {
    const billing = await lister.get('/api/v1/jobs?name=billing-&limit=500');
    expect(billing.body.data).toHaveLength(40);
    expect(billing.body.data.every((j: { name: string }) => j.name.startsWith('billing-'))).toBe(true);
    const underscore = await lister.get('/api/v1/jobs?name=report_&limit=500');
    expect(underscore.body.data).toHaveLength(80);
    expect((await lister.get('/api/v1/jobs?name=report%25')).body.data).toHaveLength(0);
    await lister.post(`/api/v1/jobs/${created[0]}/pause`);
    const paused = await lister.get('/api/v1/jobs?status=paused');
    expect(paused.body.data.map((j: { id: string }) => j.id)).toEqual([created[0]]);
    const pausedBilling = await lister.get('/api/v1/jobs?status=paused&name=report');
    expect(pausedBilling.body.data).toHaveLength(0);
  });

  it('rejects invalid paging and filters with 400', async () => {
    for (const q of [
      'limit=0',
      'limit=501',
      'limit=abc',
      'limit=1.5',
      'cursor=garbage!',
      'cursor=eyJ4IjoxfQ',
      'status=running',
      'foo=bar',
    ]) {
      const res = await lister.get(`/api/v1/jobs?${q}`);
      expect(res.status, q).toBe(400);
    }
  });
});

describe('GET /api/v1/jobs over every status', () => {
  it('merges active, paused and completed jobs newest first, a batch (one created_at) by id, page by page', async () => {
    const tenant = await makeTenant(h);
    const c = client(h, tenant.key);
    const single = [];
    for (let i = 0; i < 4; i++) single.push((await c.post('/api/v1/jobs', jobBody({ name: `single-${i}` }))).body.id);
    const batch = await c.post('/api/v1/jobs/batch', {
      jobs: [0, 1, 2, 3, 4].map((i) => jobBody({ name: `batch-${i}` })),
    });
    expect(batch.status).toBe(201);
    const batchIds: string[] = batch.body.data.map((j: { id: string }) => j.id);
    await c.post(`/api/v1/jobs/${single[1]}/pause`);
    await c.post(`/api/v1/jobs/${batchIds[2]}/pause`);
    await h.db.pool.query(`UPDATE jobs SET status = 'completed' WHERE id = ANY($1)`, [[single[2], batchIds[0]]]);
    const { rows } = await h.db.pool.query<{ id: string; status: string }>(
      'SELECT id, status FROM jobs WHERE tenant_id = $1 ORDER BY created_at DESC, id DESC',
      [tenant.tenantId],
    );
    expect(new Set(rows.map((r) => r.status))).toEqual(new Set(['active', 'paused', 'completed']));
    const walk = async (filter: string) => {
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const res = await c.get(`/api/v1/jobs?limit=2${filter}${cursor ? `&cursor=${cursor}` : ''}`);
        expect(res.status).toBe(200);
        seen.push(...res.body.data.map((j: { id: string }) => j.id));
        cursor = res.body.nextCursor;
      } while (cursor);
      return seen;
    };
    expect(await walk('')).toEqual(rows.map((r) => r.id));
    for (const status of ['active', 'paused', 'completed']) {
      expect(await walk(`&status=${status}`), status).toEqual(rows.filter((r) => r.status === status).map((r) => r.id));
    }
  });
});

describe('GET, PATCH, DELETE /api/v1/jobs/{id}', () => {
  it('gets a job; unknown and malformed ids are 404', async () => {
    const created = await api.post('/api/v1/jobs', jobBody());
    const res = await api.get(`/api/v1/jobs/${created.body.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(created.body);
    expect((await api.get('/api/v1/jobs/job_01KB3Y8J2Q7Z9V4N6M5X0C1R2T')).status).toBe(404);
    expect((await api.get('/api/v1/jobs/not-an-id')).status).toBe(404);
  });

  it('patches fields, merges retry, bumps the version and keeps the next run when the schedule is unchanged', async () => {
    const created = await api.post(
      '/api/v1/jobs',
      jobBody({ retry: { maxAttempts: 3, initialDelaySeconds: 5, maxDelaySeconds: 60 } }),
    );
    const id = created.body.id;
    const res = await api.patch(`/api/v1/jobs/${id}`, {
      name: 'renamed',
      retry: { maxAttempts: 7 },
      priority: 'high',
      payload: null,
      target: { url: 'https://example.org/new' },
    });
    expect(res.status).toBe(200);
    Job.parse(res.body);
    expect(res.body).toMatchObject({
      name: 'renamed',
      priority: 'high',
      payload: null,
      retry: { maxAttempts: 7, initialDelaySeconds: 5, maxDelaySeconds: 60 },
      target: { type: 'http', url: 'https://example.org/new', method: 'POST', headers: {} },
      nextRunAt: created.body.nextRunAt,
    });
    const { rows } = await h.db.pool.query('SELECT version FROM jobs WHERE id = $1', [id]);
    expect(rows[0].version).toBe(2);
  });

  it('rejects a merged retry whose initial delay exceeds the max', async () => {
    const created = await api.post('/api/v1/jobs', jobBody());
    const res = await api.patch(`/api/v1/jobs/${created.body.id}`, { retry: { maxDelaySeconds: 1 } });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([
      { path: 'retry.initialDelaySeconds', message: 'must not exceed maxDelaySeconds' },
    ]);
  });

  it('recomputes the next run when the schedule changes and withdraws runs materialized ahead', async () => {
    const created = await api.post('/api/v1/jobs', jobBody());
    const id = created.body.id;
    const future = await insertRun(h, {
      tenantId: t.tenantId,
      jobId: id,
      status: 'pending',
      scheduledTime: new Date(Date.now() + 3_600_000),
      finishedAt: null,
    });
    const res = await api.patch(`/api/v1/jobs/${id}`, { schedule: { type: 'interval', everySeconds: 60 } });
    expect(res.status).toBe(200);
    expect(res.body.schedule).toEqual({ type: 'interval', everySeconds: 60 });
    expect(Date.parse(res.body.nextRunAt) - Date.parse(res.body.updatedAt)).toBe(60_000);
    expect((await entryOf(id))?.next_run_at.toISOString()).toBe(res.body.nextRunAt);
    // Not yet due under a schedule that no longer exists: withdrawn, not kept as history (a
    // cancelled run would hold its occurrence, which the new schedule may share).
    expect((await api.get(`/api/v1/runs/${future}`)).status).toBe(404);
  });

  it('a new schedule that fires at an instant the old one had materialized still runs then', async () => {
    const every5 = { type: 'cron', expression: '*/5 * * * *', timezone: 'UTC' };
    const created = await api.post('/api/v1/jobs', jobBody({ schedule: every5 }));
    const id = created.body.id;
    const next = new Date(created.body.nextRunAt);
    // What the scheduler does ahead of time: the occurrence becomes a pending run, the entry moves on.
    await insertRun(h, { tenantId: t.tenantId, jobId: id, status: 'pending', scheduledTime: next, finishedAt: null });
    await h.db.pool.query('UPDATE jobs SET next_run_at = $2 WHERE id = $1', [id, new Date(next.getTime() + 300_000)]);
    // Hourly at that same minute: its first occurrence is the instant already materialized.
    const hourly = { type: 'cron', expression: `${next.getUTCMinutes()} * * * *`, timezone: 'UTC' };
    const patched = await api.patch(`/api/v1/jobs/${id}`, { schedule: hourly });
    expect(patched.status).toBe(200);
    expect(patched.body.nextRunAt).toBe(next.toISOString());
    expect((await entryOf(id))?.next_run_at.getTime()).toBe(next.getTime());
    // Nothing occupies that occurrence: the scheduler can materialize it under the new schedule.
    const { rows } = await h.db.pool.query('SELECT status FROM runs WHERE job_id = $1 AND scheduled_time = $2', [
      id,
      next,
    ]);
    expect(rows).toEqual([]);
  });

  it('reactivates a completed job whose schedule is changed', async () => {
    const created = await api.post('/api/v1/jobs', jobBody());
    await h.db.pool.query(`UPDATE jobs SET status = 'completed' WHERE id = $1`, [created.body.id]);
    await h.db.pool.query('UPDATE jobs SET next_run_at = NULL WHERE id = $1', [created.body.id]);
    const runAt = new Date(Date.now() + 86_400_000).toISOString();
    const res = await api.patch(`/api/v1/jobs/${created.body.id}`, { schedule: { type: 'once', runAt } });
    expect(res.body).toMatchObject({ status: 'active', nextRunAt: runAt });
  });

  it('deletes softly: 204, then 404, pending runs cancelled, finished history kept, no entry', async () => {
    const created = await api.post('/api/v1/jobs', jobBody());
    const id = created.body.id;
    const pending = await insertRun(h, { tenantId: t.tenantId, jobId: id, status: 'pending', finishedAt: null });
    const done = await insertRun(h, { tenantId: t.tenantId, jobId: id, status: 'succeeded' });
    const res = await api.del(`/api/v1/jobs/${id}`);
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect((await api.get(`/api/v1/jobs/${id}`)).status).toBe(404);
    expect((await api.del(`/api/v1/jobs/${id}`)).status).toBe(404);
    expect((await api.patch(`/api/v1/jobs/${id}`, { name: 'x' })).status).toBe(404);
    expect(await entryOf(id)).toBeUndefined();
    expect((await api.get(`/api/v1/runs/${pending}`)).body.status).toBe('cancelled');
    expect((await api.get(`/api/v1/runs/${done}`)).body.status).toBe('succeeded');
    const history = await api.get(`/api/v1/jobs/${id}/runs`);
    expect(history.status).toBe(200);
    expect(history.body.data).toHaveLength(2);
    expect((await api.get('/api/v1/jobs?limit=500')).body.data.some((j: { id: string }) => j.id === id)).toBe(false);
  });
});

describe('pause and resume', () => {
  it('pause removes the entry and cancels pending and retry-waiting runs; running ones are left alone', async () => {
    const created = await api.post('/api/v1/jobs', jobBody());
    const id = created.body.id;
    const pending = await insertRun(h, { tenantId: t.tenantId, jobId: id, status: 'pending', finishedAt: null });
    const failed = await insertRun(h, {
      tenantId: t.tenantId,
      jobId: id,
      status: 'failed',
      finishedAt: null,
      attempts: 1,
    });
    const running = await insertRun(h, { tenantId: t.tenantId, jobId: id, status: 'running', finishedAt: null });
    const res = await api.post(`/api/v1/jobs/${id}/pause`);
    expect(res.status).toBe(200);
    expect(Job.parse(res.body)).toMatchObject({ status: 'paused', nextRunAt: null });
    expect(await entryOf(id)).toBeUndefined();
    for (const runId of [pending, failed]) {
      const run = (await api.get(`/api/v1/runs/${runId}`)).body;
      expect(run.status).toBe('cancelled');
      expect(run.finishedAt).not.toBeNull();
    }
    expect((await api.get(`/api/v1/runs/${running}`)).body.status).toBe('running');
    // pausing again changes nothing
    expect((await api.post(`/api/v1/jobs/${id}/pause`)).body).toEqual(res.body);
  });

  it('resume recomputes the next run from now and keeps an interval on its original phase', async () => {
    const created = await api.post('/api/v1/jobs', jobBody({ schedule: { type: 'interval', everySeconds: 7 } }));
    const id = created.body.id;
    await api.post(`/api/v1/jobs/${id}/pause`);
    h.clock.advance(60_000);
    try {
      const res = await api.post(`/api/v1/jobs/${id}/resume`);
      expect(res.status).toBe(200);
      expect(res.body.status).toBe('active');
      const next = Date.parse(res.body.nextRunAt);
      expect(next).toBeGreaterThan(h.clock.now().getTime() - 1000);
      expect((next - Date.parse(created.body.createdAt)) % 7000).toBe(0);
      expect((await entryOf(id))?.next_run_at.getTime()).toBe(next);
      expect((await api.post(`/api/v1/jobs/${id}/resume`)).body).toEqual(res.body);
    } finally {
      h.clock.advance(-60_000);
    }
  });

  it('a completed job cannot be paused or resumed (409)', async () => {
    const created = await api.post('/api/v1/jobs', jobBody());
    await h.db.pool.query(`UPDATE jobs SET status = 'completed' WHERE id = $1`, [created.body.id]);
    expect((await api.post(`/api/v1/jobs/${created.body.id}/pause`)).status).toBe(409);
    expect((await api.post(`/api/v1/jobs/${created.body.id}/resume`)).status).toBe(409);
  });

  it('writes the audit log with who did what', async () => {
    const created = await api.post('/api/v1/jobs', jobBody());
    await api.post(`/api/v1/jobs/${created.body.id}/pause`);
    const { rows } = await h.db.pool.query(
      `SELECT action, actor_type, actor_id FROM audit_log WHERE target_id = $1 ORDER BY id`,
      [created.body.id],
    );
    const { rows: keys } = await h.db.pool.query('SELECT id FROM api_keys WHERE tenant_id = $1', [t.tenantId]);
    expect(rows).toEqual([
      { action: 'job.created', actor_type: 'api_key', actor_id: keys[0].id },
      { action: 'job.paused', actor_type: 'api_key', actor_id: keys[0].id },
    ]);
  });
});

describe('unknown paths and methods', () => {
  it('404 problem for unknown paths, 405 with Allow for known paths', async () => {
    const unknown = await api.get('/api/v1/nope');
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('content-type')).toBe('application/problem+json');
    expect(unknown.body).toMatchObject({
      type: expect.any(String),
      title: 'Not found',
      status: 404,
      detail: expect.any(String),
    });
    const put = await call(h, 'PUT', '/api/v1/jobs', { key: t.key });
    expect(put.status).toBe(405);
    expect(put.headers.get('allow')).toBe('POST, GET');
    expect((await call(h, 'DELETE', '/api/v1/jobs', { key: t.key })).status).toBe(405);
    expect((await call(h, 'GET', '/api/v1/jobs/job_01KB3Y8J2Q7Z9V4N6M5X0C1R2T/pause', { key: t.key })).status).toBe(
      405,
    );
  });
});
