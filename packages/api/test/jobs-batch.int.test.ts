// POST /api/v1/jobs/batch: up to 1,000 jobs in one transaction, all or nothing; errors name
// the item; the same jobs a one-by-one create would make; tenant isolation; Idempotency-Key;
// one request per 100 jobs against the rate limit.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Job, JobBatch } from '../src/schemas/resources';
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

const many = (n: number, prefix = 'batch') =>
  Array.from({ length: n }, (_, i) => jobBody({ name: `${prefix}-${i}`, payload: { i } }));

describe('POST /api/v1/jobs/batch', () => {
  it('creates every job in the order given, each as POST /jobs would', async () => {
    const before = await counts(h);
    const jobs = [
      ...many(3),
      jobBody({ name: 'once', schedule: { type: 'once', runAt: '2030-01-01T00:00:00Z' }, priority: 'high' }),
      jobBody({ name: 'every', schedule: { type: 'interval', everySeconds: 60 }, payload: undefined }),
    ];
    const res = await api.post('/api/v1/jobs/batch', { jobs });
    expect(res.status).toBe(201);
    const body = JobBatch.parse(res.body);
    expect(body.data.map((j) => j.name)).toEqual(['batch-0', 'batch-1', 'batch-2', 'once', 'every']);
    expect(new Set(body.data.map((j) => j.id)).size).toBe(5);
    expect(body.data[3]).toMatchObject({
      schedule: { type: 'once', runAt: '2030-01-01T00:00:00.000Z' },
      priority: 'high',
      status: 'active',
      nextRunAt: '2030-01-01T00:00:00.000Z',
    });
    expect(body.data[4]?.payload).toBeNull();
    // Each job reads back exactly as the batch answered it.
    for (const job of body.data) {
      const one = await api.get(`/api/v1/jobs/${job.id}`);
      expect(Job.parse(one.body)).toEqual(job);
    }
    const after = await counts(h);
    expect(after.jobs - before.jobs).toBe(5);
    expect(after.entries - before.entries).toBe(5);
    const { rows } = await h.db.pool.query(
      `SELECT count(*)::int AS n FROM audit_log WHERE action = 'job.created' AND target_id = ANY($1)`,
      [body.data.map((j) => j.id)],
    );
    expect(rows[0].n).toBe(5);
  });

  it('answers each job exactly as it reads back, jsonb key order and all (batch and single create)', async () => {
    // jsonb orders an object's keys by length in UTF-8 bytes, then bytewise, and keeps the last
    // of duplicates; the answer is built without reading the rows back, so it must agree.
    const payloads: unknown[] = [
      { zebra: 1, a: { yy: [1, { b: 2, aa: null }], x: 'ü' }, '10': 'ten', '2': 'two', é: 'e-acute', z: 'z' },
      { big: 1e21, small: 5e-324, neg: -0, frac: 0.1, arr: [[], {}, [{ k: true }]] },
      ['list', { b: 1, a: 2 }],
      'just text',
      42,
      null,
      { '\u{1F600}': 'astral', '\uFFFD': 'bmp', ab: 1, b: 2 },
      { ['__proto__']: { polluted: true }, ok: 1 },
    ];
    const jobs = payloads.map((payload, i) =>
      jobBody({
        name: `exact-${i}`,
        payload,
        target: {
          type: 'http',
          url: 'https://example.com/hook',
          method: 'PUT',
          headers: { 'x-team': 'billing', Authorization: 'Bearer sk_live_x', 'a-b': 'c' },
        },
        alerts: i % 2 ? { notifyRecovery: false, lateAfterSeconds: 120, onDead: true } : null,
        retry: { maxDelaySeconds: 600, maxAttempts: 3 },
      }),
    );
    jobs.push(jobBody({ name: 'exact-once', schedule: { type: 'once', runAt: '2020-01-01T00:00:00.123456Z' } }));
    jobs.push(jobBody({ name: 'exact-interval', schedule: { type: 'interval', everySeconds: 7 }, payload: undefined }));
    const res = await api.post('/api/v1/jobs/batch', { jobs });
    expect(res.status).toBe(201);
    const single = await api.post('/api/v1/jobs', jobs[0]);
    expect(single.status).toBe(201);
    for (const job of [...res.body.data, single.body]) {
      const one = await api.get(`/api/v1/jobs/${job.id}`);
      expect(JSON.stringify(job)).toBe(JSON.stringify(one.body));
    }
    expect(Object.keys(res.body.data[0].payload)).toEqual(['2', '10', 'a', 'z', 'é', 'zebra']);
    expect(Object.keys(res.body.data[0].payload.a)).toEqual(['x', 'yy']);
  });

  it('creates 1,000 jobs in one request', async () => {
    const before = (await counts(h)).jobs;
    const res = await api.post('/api/v1/jobs/batch', { jobs: many(1000, 'thousand') });
    expect(res.status).toBe(201);
    expect(res.body.data).toHaveLength(1000);
    expect(res.body.data[999].name).toBe('thousand-999');
    expect((await counts(h)).jobs - before).toBe(1000);
  });

  it('one bad item refuses the whole batch: nothing is created, the error names the item', async () => {
    const before = await counts(h);
    const jobs = many(30, 'bad');
    jobs[17] = jobBody({ name: 'bad-17', schedule: { type: 'cron', expression: 'not a cron' } });
    jobs[21] = jobBody({ name: '' });
    const res = await api.post('/api/v1/jobs/batch', { jobs });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    const paths = (res.body.errors as { path: string }[]).map((e) => e.path);
    expect(paths).toContain('jobs.17.schedule.expression');
    expect(paths).toContain('jobs.21.name');
    expect(paths.every((p) => p.startsWith('jobs.17.') || p.startsWith('jobs.21.'))).toBe(true);
    expect(await counts(h)).toEqual(before);
  });

  it('refuses more than 1,000 jobs, an empty batch and a body that is not a batch', async () => {
    const before = await counts(h);
    const over = await api.post('/api/v1/jobs/batch', { jobs: many(1001, 'over') });
    expect(over.status).toBe(400);
    expect(over.body.errors).toContainEqual({ path: 'jobs', message: 'must hold at most 1000 jobs' });
    const empty = await api.post('/api/v1/jobs/batch', { jobs: [] });
    expect(empty.status).toBe(400);
    expect(empty.body.errors[0].path).toBe('jobs');
    const bare = await api.post('/api/v1/jobs/batch', many(2));
    expect(bare.status).toBe(400);
    const extra = await api.post('/api/v1/jobs/batch', { jobs: many(1), dryRun: true });
    expect(extra.status).toBe(400);
    expect(extra.body.errors).toContainEqual({ path: 'dryRun', message: 'is not a known field' });
    expect(await counts(h)).toEqual(before);
  });

  it('refuses a body over the batch cap with 413', async () => {
    const before = await counts(h);
    const big = { blob: 'x'.repeat(200 * 1024) };
    const jobs = Array.from({ length: 45 }, (_, i) => jobBody({ name: `big-${i}`, payload: big }));
    const res = await api.post('/api/v1/jobs/batch', { jobs });
    expect(res.status).toBe(413);
    expect(await counts(h)).toEqual(before);
  });

  it("creates jobs in the caller's tenant only", async () => {
    const other = await makeTenant(h);
    const otherApi = client(h, other.key);
    const res = await otherApi.post('/api/v1/jobs/batch', { jobs: many(2, 'other-tenant') });
    expect(res.status).toBe(201);
    for (const job of res.body.data as { id: string }[]) {
      expect((await api.get(`/api/v1/jobs/${job.id}`)).status).toBe(404);
      expect((await otherApi.get(`/api/v1/jobs/${job.id}`)).status).toBe(200);
    }
    const { rows } = await h.db.pool.query('SELECT DISTINCT tenant_id FROM jobs WHERE id = ANY($1)', [
      res.body.data.map((j: { id: string }) => j.id),
    ]);
    expect(rows).toEqual([{ tenant_id: other.tenantId }]);
    const mine = await api.get('/api/v1/jobs?name=other-tenant');
    expect(mine.body.data).toEqual([]);
  });

  it('honours Idempotency-Key: the same body answers the same jobs, another body is 422', async () => {
    const key = `batch-idem-${Date.now()}`;
    const headers = { 'idempotency-key': key };
    const first = await api.post('/api/v1/jobs/batch', { jobs: many(3, 'idem') }, { headers });
    expect(first.status).toBe(201);
    const before = await counts(h);
    const again = await api.post('/api/v1/jobs/batch', { jobs: many(3, 'idem') }, { headers });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await counts(h)).toEqual(before);
    const different = await api.post('/api/v1/jobs/batch', { jobs: many(2, 'idem') }, { headers });
    expect(different.status).toBe(422);
    // A single create with the key is a different request too.
    expect((await api.post('/api/v1/jobs', jobBody(), { headers })).status).toBe(422);
    expect(await counts(h)).toEqual(before);
  });

  it('counts as one request per 100 jobs against the rate limit', async () => {
    const limited = await makeTenant(h);
    await h.db.pool.query('UPDATE tenants SET rate_limit_per_second = 1, rate_limit_burst = 3 WHERE id = $1', [
      limited.tenantId,
    ]);
    const lapi = client(h, limited.key);
    // 300 jobs = 3 requests: the burst of 3 holds one such batch, not two in a row.
    const first = await lapi.post('/api/v1/jobs/batch', { jobs: many(300, 'rl') });
    expect(first.status).toBe(201);
    const before = await counts(h);
    const second = await lapi.post('/api/v1/jobs/batch', { jobs: many(300, 'rl2') });
    expect(second.status).toBe(429);
    expect(Number(second.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(await counts(h)).toEqual(before);
  });
});
