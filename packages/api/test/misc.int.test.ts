// Health, schedule preview, the signing secret and the audit log.
import { type AddressInfo, createServer, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPool } from '@belfry/db';
import { nextFireTimes } from '@belfry/core';
import { createRestHandler, listAuditLog, SchedulePreview, SigningSecret } from '../src/index';
import { call, client, createHarness, type Harness, jobBody, makeTenant, silentLog, type TestTenant } from './support';

let h: Harness;
let t: TestTenant;
let api: ReturnType<typeof client>;

beforeAll(async () => {
  h = await createHarness();
  t = await makeTenant(h);
  api = client(h, t.key);
});
afterAll(() => h.close());

describe('GET /api/v1/healthz', () => {
  it('is 200 {status: ok} without auth while the database answers', async () => {
    const res = await call(h, 'GET', '/api/v1/healthz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok' });
  });

  it('is a 503 problem when the database is unreachable or the service cannot start', async () => {
    const dead = createPool('postgres://belfry-secret-user:x@127.0.0.1:1/none', { max: 1 });
    try {
      const down = createRestHandler(async () => ({ ...h.deps, log: silentLog, pool: dead }), { log: silentLog });
      const res = await down(new Request('http://localhost/api/v1/healthz'));
      expect(res.status).toBe(503);
      expect(res.headers.get('content-type')).toBe('application/problem+json');
      const text = await res.text();
      expect(JSON.parse(text)).toMatchObject({ status: 503, title: 'Service unavailable' });
      // Never the driver's words: no address, port, user or error code for an anonymous caller.
      expect(text).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|belfry-secret-user|:1\b/);
    } finally {
      await dead.end();
    }
    const failing = createRestHandler(
      () => Promise.reject(new Error('connect ECONNREFUSED 10.1.2.3:5432 password authentication failed for "admin"')),
      { log: silentLog },
    );
    const res = await failing(new Request('http://localhost/api/v1/healthz'));
    expect(res.status).toBe(503);
    expect(await res.text()).not.toMatch(/ECONNREFUSED|10\.1\.2\.3|admin/);
    const jobs = await failing(
      new Request('http://localhost/api/v1/jobs', { headers: { authorization: `Bearer ${t.key}` } }),
    );
    expect(jobs.status).toBe(503);
    // The document does not need the database.
    expect((await failing(new Request('http://localhost/api/v1/openapi.json'))).status).toBe(200);
  });

  it('is a 503 problem, not a hang, when the database accepts connections but never answers', async () => {
    // A network path gone dark: the connection is accepted, nothing ever comes back.
    const held: Socket[] = [];
    const silent = createServer((socket) => held.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as AddressInfo).port;
    const dark = createPool(`postgres://belfry:x@127.0.0.1:${port}/none`, { max: 2 });
    try {
      const down = createRestHandler(async () => ({ ...h.deps, log: silentLog, pool: dark }), { log: silentLog });
      for (let i = 0; i < 3; i++) {
        const res = await down(new Request('http://localhost/api/v1/healthz'));
        expect(res.status).toBe(503);
      }
    } finally {
      for (const socket of held) socket.destroy();
      await dark.end().catch(() => {});
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });
});

describe('request logs', () => {
  it('one line per request with status and duration, and the tenant, job and run it was about', async () => {
    const lines: Record<string, unknown>[] = [];
    const record = (level: string) => (obj: object | string, msg?: string) =>
      lines.push({ level, ...(typeof obj === 'string' ? { msg: obj } : { ...obj, msg }) });
    const log = { info: record('info'), warn: record('warn'), error: record('error') };
    const handle = createRestHandler(async () => ({ ...h.deps, log }), { log });
    const created = await api.post('/api/v1/jobs', jobBody({ name: 'logged' }));
    const jobId = (created.body as { id: string }).id;
    const res = await handle(
      new Request(`http://localhost/api/v1/jobs/${jobId}`, { headers: { authorization: `Bearer ${t.key}` } }),
    );
    expect(res.status).toBe(200);
    const missing = await handle(
      new Request('http://localhost/api/v1/runs/run_00000000000000000000000000', {
        headers: { authorization: `Bearer ${t.key}` },
      }),
    );
    expect(missing.status).toBe(404);
    const requests = lines.filter((l) => l.msg === 'request');
    expect(requests[0]).toMatchObject({
      level: 'info',
      method: 'GET',
      path: `/api/v1/jobs/${jobId}`,
      status: 200,
      tenantId: t.tenantId,
      jobId,
    });
    expect(typeof requests[0]?.durationMs).toBe('number');
    expect(requests[1]).toMatchObject({ status: 404, tenantId: t.tenantId, runId: 'run_00000000000000000000000000' });
    // Never the key itself.
    expect(JSON.stringify(lines)).not.toContain(t.key);
  });
});

describe('GET /api/v1/schedule/preview', () => {
  it('answers exactly what nextFireTimes (the scheduler) computes', async () => {
    const from = '2026-03-28T00:00:00Z';
    const res = await api.get(
      `/api/v1/schedule/preview?expression=30+2+*+*+*&timezone=Europe/Berlin&from=${from}&count=3`,
    );
    expect(res.status).toBe(200);
    const body = SchedulePreview.parse(res.body);
    const expected = nextFireTimes(
      { type: 'cron', expression: '30 2 * * *', timezone: 'Europe/Berlin' },
      new Date(from),
      3,
    );
    expect(body.times).toEqual(expected.map((d) => d.toISOString()));
    // 02:30 does not exist on 2026-03-29 in Berlin: it fires at 03:30 CEST = 01:30 UTC.
    expect(body.times).toEqual(['2026-03-28T01:30:00.000Z', '2026-03-29T01:30:00.000Z', '2026-03-30T00:30:00.000Z']);
  });

  it('counts intervals from `from`, strictly after it; defaults to 10 times, UTC and now', async () => {
    const res = await api.get('/api/v1/schedule/preview?everySeconds=90&from=2026-12-01T00:00:00Z&count=3');
    expect(res.body.times).toEqual([
      '2026-12-01T00:01:30.000Z',
      '2026-12-01T00:03:00.000Z',
      '2026-12-01T00:04:30.000Z',
    ]);
    const defaults = await api.get('/api/v1/schedule/preview?expression=0+*+*+*+*');
    expect(defaults.body.times).toHaveLength(10);
    expect(Date.parse(defaults.body.times[0])).toBeGreaterThan(Date.now() - 1000);
    expect(new Date(defaults.body.times[0]).getUTCMinutes()).toBe(0);
    const max = await api.get('/api/v1/schedule/preview?everySeconds=1&count=100');
    expect(max.body.times).toHaveLength(100);
    const seconds = await api.get(
      '/api/v1/schedule/preview?expression=*/15+*+*+*+*+*&from=2026-12-01T00:00:00Z&count=2',
    );
    expect(seconds.body.times).toEqual(['2026-12-01T00:00:15.000Z', '2026-12-01T00:00:30.000Z']);
  });
});

describe('signing secret', () => {
  it('reads and rotates; the previous secret stays valid for 24 h', async () => {
    const first = await api.get('/api/v1/signing-secret');
    expect(first.status).toBe(200);
    expect(SigningSecret.parse(first.body)).toMatchObject({ previous: null, previousExpiresAt: null });
    expect(first.body.secret).toMatch(/^whsec_/);
    const rotated = await api.post('/api/v1/signing-secret/rotate');
    expect(rotated.status).toBe(200);
    expect(rotated.body.previous).toBe(first.body.secret);
    expect(rotated.body.secret).not.toBe(first.body.secret);
    const expires = Date.parse(rotated.body.previousExpiresAt) - Date.now();
    expect(expires).toBeGreaterThan(23.9 * 3600_000);
    expect(expires).toBeLessThanOrEqual(24 * 3600_000);
    expect((await api.get('/api/v1/signing-secret')).body).toEqual(rotated.body);
  });
});

describe('audit log', () => {
  it('lists newest first with cursor pagination, scoped to the tenant, admins only', async () => {
    for (let i = 0; i < 3; i++) await api.post('/api/v1/jobs', jobBody({ name: `audited-${i}` }));
    const page1 = await listAuditLog(h.deps, t.actor, { limit: 2 });
    expect(page1.data).toHaveLength(2);
    expect(page1.nextCursor).not.toBeNull();
    const all = await listAuditLog(h.deps, t.actor, { limit: 500 });
    const page2 = await listAuditLog(h.deps, t.actor, { limit: 500, cursor: page1.nextCursor as string });
    expect([...page1.data, ...page2.data].map((e) => e.id)).toEqual(all.data.map((e) => e.id));
    expect(all.data[0]).toMatchObject({ action: 'job.created', actorType: 'api_key', targetType: 'job' });
    const other = await makeTenant(h);
    expect((await listAuditLog(h.deps, other.actor)).data.every((e) => e.action === 'tenant.created')).toBe(true);
    const member = { type: 'user' as const, id: 'usr_x', tenantId: t.tenantId, role: 'member' as const };
    await expect(listAuditLog(h.deps, member)).rejects.toMatchObject({ code: 'forbidden' });
  });
});
