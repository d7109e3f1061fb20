// Limits (contract section 8): GET /api/v1/limits, and 422 quota-exceeded problems for jobs,
// scheduled runs per minute (create, update, resume), API keys and workspaces, on every path
// that creates them (REST, the dashboard's tRPC), creating nothing when refused.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Limits } from '../src/schemas/resources';
import { setTenantLimits } from '../src/services/limits';
import { createDashboardContext } from '../src/trpc/context';
import { createCallerFactory } from '../src/trpc/init';
import { appRouter } from '../src/trpc/router';
import { client, counts, createHarness, type Harness, jobBody, makeTenant } from './support';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(() => h.close());

const cron = (expression: string) => ({ type: 'cron', expression, timezone: 'UTC' });

function expectQuota(res: { status: number; headers: Headers; body: Record<string, unknown> }, quota: string) {
  expect(res.status).toBe(422);
  expect(res.headers.get('content-type')).toBe('application/problem+json');
  expect(res.body.type).toMatch(/\/quota-exceeded$/);
  expect(res.body).toMatchObject({ status: 422, title: 'Quota exceeded', quota });
  expect(typeof res.body.limit).toBe('number');
  expect(typeof res.body.current).toBe('number');
}

describe('GET /api/v1/limits', () => {
  it("answers the tenant's limits, with the contract's defaults, and its usage", async () => {
    const t = await makeTenant(h);
    const api = client(h, t.key);
    await api.post('/api/v1/jobs', jobBody({ schedule: cron('* * * * * *') }));
    await api.post('/api/v1/jobs', jobBody({ schedule: { type: 'interval', everySeconds: 300 } }));
    const res = await api.get('/api/v1/limits');
    expect(res.status).toBe(200);
    expect(Limits.parse(res.body)).toBeTruthy();
    expect(res.body).toMatchObject({
      maxJobs: 100000,
      maxRunsPerMinute: 60000,
      maxConcurrency: 50,
      maxApiKeys: 100,
      usage: { jobs: 2, runsPerMinute: 60.2, apiKeys: 1 },
    });
    expect(res.body.rateLimitPerSecond).toBeGreaterThan(0);
  });
});

describe('jobs per tenant', () => {
  it('refuses the job past maxJobs with 422 and creates nothing; deleting one makes room', async () => {
    const t = await makeTenant(h);
    const api = client(h, t.key);
    await setTenantLimits(h.deps, t.tenantId, { maxJobs: 2 });
    const first = await api.post('/api/v1/jobs', jobBody());
    await api.post('/api/v1/jobs', jobBody());
    const before = await counts(h);
    const refused = await api.post('/api/v1/jobs', jobBody());
    expectQuota(refused, 'maxJobs');
    expect(refused.body).toMatchObject({ limit: 2, current: 2 });
    expect(await counts(h)).toEqual(before);
    await api.del(`/api/v1/jobs/${first.body.id}`);
    expect((await api.post('/api/v1/jobs', jobBody())).status).toBe(201);
  });

  it('holds under concurrent creates: never more jobs than the limit', async () => {
    const t = await makeTenant(h);
    const api = client(h, t.key);
    await setTenantLimits(h.deps, t.tenantId, { maxJobs: 3 });
    const results = await Promise.all(Array.from({ length: 8 }, () => api.post('/api/v1/jobs', jobBody())));
    expect(results.filter((r) => r.status === 201)).toHaveLength(3);
    expect(results.filter((r) => r.status === 422)).toHaveLength(5);
  });
});

describe('batch creation', () => {
  it('counts the whole batch: past a limit nothing of it is created', async () => {
    const t = await makeTenant(h);
    const api = client(h, t.key);
    await setTenantLimits(h.deps, t.tenantId, { maxJobs: 3, maxRunsPerMinute: 100 });
    await api.post('/api/v1/jobs', jobBody());
    const before = await counts(h);
    const tooMany = await api.post('/api/v1/jobs/batch', { jobs: [jobBody(), jobBody(), jobBody()] });
    expectQuota(tooMany, 'maxJobs');
    expect(tooMany.body).toMatchObject({ limit: 3, current: 1 });
    const tooFast = await api.post('/api/v1/jobs/batch', {
      jobs: [jobBody({ schedule: cron('* * * * * *') }), jobBody({ schedule: cron('* * * * * *') })],
    });
    expectQuota(tooFast, 'maxRunsPerMinute');
    expect(await counts(h)).toEqual(before);
    const fits = await api.post('/api/v1/jobs/batch', {
      jobs: [jobBody(), jobBody({ schedule: cron('* * * * * *') })],
    });
    expect(fits.status).toBe(201);
    expect((await api.get('/api/v1/limits')).body.usage).toMatchObject({ jobs: 3 });
  });
});

describe('concurrent batches', () => {
  it('never take more jobs than the limit: each batch whole or not at all', async () => {
    const t = await makeTenant(h);
    const api = client(h, t.key);
    await setTenantLimits(h.deps, t.tenantId, { maxJobs: 5 });
    const results = await Promise.all(
      Array.from({ length: 4 }, () => api.post('/api/v1/jobs/batch', { jobs: [jobBody(), jobBody()] })),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(2);
    for (const r of results.filter((r) => r.status !== 201)) {
      expectQuota(r, 'maxJobs');
      expect(r.body).toMatchObject({ limit: 5, current: 4 });
    }
    expect((await api.get('/api/v1/limits')).body.usage).toMatchObject({ jobs: 4 });
  });
});

describe("the tenant row's usage counters", () => {
  /** The counters the jobs triggers keep against a count of the tenant's jobs. */
  async function expectCountersRight(tenantId: string) {
    const { rows } = await h.db.pool.query(
      `SELECT t.job_count = c.jobs AS jobs, t.scheduled_rate = c.rate AS rate, t.unrated_jobs = c.unrated AS unrated,
              c.jobs AS counted
         FROM tenants t,
              LATERAL (SELECT count(*)::int AS jobs,
                              COALESCE(sum(j.runs_per_minute::numeric) FILTER (WHERE j.status = 'active'), 0) AS rate,
                              count(*) FILTER (WHERE j.runs_per_minute IS NULL)::int AS unrated
                         FROM jobs j WHERE j.tenant_id = t.id AND j.deleted_at IS NULL) c
        WHERE t.id = $1`,
      [tenantId],
    );
    expect(rows[0]).toMatchObject({ jobs: true, rate: true, unrated: true });
    return rows[0].counted as number;
  }

  it('agree with a count of the jobs after every kind of write, by the API or by hand', async () => {
    const t = await makeTenant(h);
    const other = await makeTenant(h);
    const api = client(h, t.key);
    const a = await api.post('/api/v1/jobs', jobBody({ schedule: cron('*/3 * * * * *') }));
    const batch = await api.post('/api/v1/jobs/batch', {
      jobs: [
        jobBody({ schedule: cron('0 7 * * *') }),
        jobBody({ schedule: { type: 'interval', everySeconds: 7 } }),
        jobBody({ schedule: { type: 'once', runAt: new Date(Date.now() + 3_600_000).toISOString() } }),
      ],
    });
    await client(h, other.key).post('/api/v1/jobs', jobBody());
    expect(await expectCountersRight(t.tenantId)).toBe(4);
    const [daily, interval, once] = batch.body.data as { id: string }[];
    await api.post(`/api/v1/jobs/${a.body.id}/pause`);
    await expectCountersRight(t.tenantId);
    await api.patch(`/api/v1/jobs/${interval?.id}`, { schedule: cron('*/5 * * * *') });
    await expectCountersRight(t.tenantId);
    await api.post(`/api/v1/jobs/${a.body.id}/resume`);
    await api.del(`/api/v1/jobs/${daily?.id}`);
    expect(await expectCountersRight(t.tenantId)).toBe(3);
    // as the engine finishes a one-off, and as rows older than the rate column read
    await h.db.pool.query(`UPDATE jobs SET status = 'completed' WHERE id = $1`, [once?.id]);
    await h.db.pool.query('UPDATE jobs SET runs_per_minute = NULL WHERE id = $1', [a.body.id]);
    await expectCountersRight(t.tenantId);
    // GET /limits fills the missing rate in, and the counters follow
    expect((await api.get('/api/v1/limits')).body.usage).toMatchObject({ jobs: 3 });
    expect((await h.db.pool.query('SELECT unrated_jobs FROM tenants WHERE id = $1', [t.tenantId])).rows[0]).toEqual({
      unrated_jobs: 0,
    });
    await expectCountersRight(t.tenantId);
    await h.db.pool.query('DELETE FROM jobs WHERE id = $1', [interval?.id]);
    expect(await expectCountersRight(t.tenantId)).toBe(2);
    // a refused batch leaves them as they were
    await setTenantLimits(h.deps, t.tenantId, { maxJobs: 3 });
    expectQuota(await api.post('/api/v1/jobs/batch', { jobs: [jobBody(), jobBody()] }), 'maxJobs');
    expect(await expectCountersRight(t.tenantId)).toBe(2);
    expect(await expectCountersRight(other.tenantId)).toBe(1);
  });

  it('are not written when a deleted job changes (its last run finishing completes it)', async () => {
    const t = await makeTenant(h);
    const api = client(h, t.key);
    const job = await api.post('/api/v1/jobs', jobBody({ schedule: cron('*/3 * * * * *') }));
    await api.del(`/api/v1/jobs/${job.body.id}`);
    const version = async () =>
      (await h.db.pool.query<{ v: string }>('SELECT xmin::text AS v FROM tenants WHERE id = $1', [t.tenantId])).rows[0]!
        .v;
    const before = await version();
    // a status change of a deleted job (as the completion of its last run made until 2026-12-06)
    await h.db.pool.query(`UPDATE jobs SET status = 'completed' WHERE id = $1`, [job.body.id]);
    expect(await version()).toBe(before);
    expect(await expectCountersRight(t.tenantId)).toBe(0);
  });
});

describe('scheduled runs per minute', () => {
  it('counts an every-second cron as 60 a minute on create, update and resume', async () => {
    const t = await makeTenant(h);
    const api = client(h, t.key);
    await setTenantLimits(h.deps, t.tenantId, { maxRunsPerMinute: 100 });
    const a = await api.post('/api/v1/jobs', jobBody({ schedule: cron('* * * * * *') }));
    expect(a.status).toBe(201);
    // another 60/min would make 120
    expectQuota(await api.post('/api/v1/jobs', jobBody({ schedule: cron('* * * * * *') })), 'maxRunsPerMinute');
    const b = await api.post('/api/v1/jobs', jobBody({ schedule: cron('*/2 * * * * *') }));
    expect(b.status).toBe(201); // 30 more: 90
    // update: every 2 s → every second would be 120
    const patched = await api.patch(`/api/v1/jobs/${b.body.id}`, { schedule: cron('* * * * * *') });
    expectQuota(patched, 'maxRunsPerMinute');
    expect(patched.body).toMatchObject({ limit: 100, current: 90 });
    expect((await api.get(`/api/v1/jobs/${b.body.id}`)).body.schedule.expression).toBe('*/2 * * * * *');
    // a paused job does not count; resuming it counts again
    await api.post(`/api/v1/jobs/${a.body.id}/pause`);
    expect((await api.get('/api/v1/limits')).body.usage.runsPerMinute).toBe(30);
    const c = await api.post('/api/v1/jobs', jobBody({ schedule: { type: 'interval', everySeconds: 1 } }));
    expect(c.status).toBe(201); // 90 again
    expectQuota(await api.post(`/api/v1/jobs/${a.body.id}/resume`), 'maxRunsPerMinute');
    expect((await api.get(`/api/v1/jobs/${a.body.id}`)).body.status).toBe('paused');
    // one-offs and slow schedules still fit
    expect((await api.post('/api/v1/jobs', jobBody({ schedule: cron('0 7 * * *') }))).status).toBe(201);
  });

  it('counts jobs that predate the limit, whose rate was never stored', async () => {
    const t = await makeTenant(h);
    const api = client(h, t.key);
    const old = await api.post('/api/v1/jobs', jobBody({ schedule: cron('* * * * * *') }));
    await h.db.pool.query('UPDATE jobs SET runs_per_minute = NULL WHERE id = $1', [old.body.id]);
    expect((await api.get('/api/v1/limits')).body.usage.runsPerMinute).toBe(60);
  });
});

describe('the dashboard (tRPC)', () => {
  const createCaller = createCallerFactory(appRouter);
  let n = 0;
  const as = (userId: string | null, tenantId: string | null = null) =>
    createCaller(
      createDashboardContext({
        deps: h.deps,
        userId,
        requestedTenantId: tenantId,
        setActiveTenant: () => {},
        clientKey: `limits-${++n}`,
      }),
    );

  async function owner() {
    const email = `limits-${++n}-${Date.now()}@example.com`;
    await as(null).account.signUp({ email, password: 'correct horse battery', workspaceName: `ws ${n}` });
    const { rows } = await h.db.pool.query<{ id: string; tenant_id: string }>(
      'SELECT u.id, m.tenant_id FROM users u JOIN memberships m ON m.user_id = u.id WHERE u.email = $1',
      [email],
    );
    const row = rows[0] as { id: string; tenant_id: string };
    return { userId: row.id, tenantId: row.tenant_id, email, api: as(row.id, row.tenant_id) };
  }

  it('refuses jobs, API keys and workspaces past their limits, and shows the limits', async () => {
    const o = await owner();
    await setTenantLimits(h.deps, o.tenantId, { maxJobs: 1, maxApiKeys: 1 });
    await o.api.jobs.create(jobBody() as never);
    await expect(o.api.jobs.create(jobBody() as never)).rejects.toMatchObject({
      code: 'UNPROCESSABLE_CONTENT',
      message: expect.stringContaining('at most 1 jobs'),
    });
    await o.api.apiKeys.create({ name: 'one', scopes: ['jobs:read'] });
    await expect(o.api.apiKeys.create({ name: 'two', scopes: ['jobs:read'] })).rejects.toMatchObject({
      code: 'UNPROCESSABLE_CONTENT',
    });
    expect((await o.api.apiKeys.list()).map((k) => k.name)).toEqual(['one']);
    const limits = await o.api.limits.get();
    expect(limits).toMatchObject({ maxJobs: 1, maxApiKeys: 1, usage: { jobs: 1, apiKeys: 1 } });

    await h.db.pool.query('UPDATE users SET max_workspaces = 2 WHERE id = $1', [o.userId]);
    await o.api.account.createWorkspace({ name: 'second' });
    await expect(o.api.account.createWorkspace({ name: 'third' })).rejects.toMatchObject({
      code: 'UNPROCESSABLE_CONTENT',
      message: expect.stringContaining('at most 2 workspaces'),
    });
    const { rows } = await h.db.pool.query('SELECT count(*)::int AS n FROM memberships WHERE user_id = $1', [o.userId]);
    expect(rows[0]).toEqual({ n: 2 });
  });
});
