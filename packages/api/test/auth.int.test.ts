// Authentication, scopes, API-key lifecycle, rate limits and tenant isolation: every route
// with an id answers 404 for another tenant's object, never 403.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, KEY_CACHE_MS, listApiKeys, listAuditLog, revokeApiKey } from '../src/index';
import { call, client, counts, createHarness, type Harness, insertRun, jobBody, makeTenant } from './support';

let h: Harness;

beforeAll(async () => {
  h = await createHarness();
});
afterAll(() => h.close());

describe('authentication', () => {
  it('answers 401 problem+json with WWW-Authenticate for every unusable credential', async () => {
    const t = await makeTenant(h);
    const revoked = await createApiKey(h.deps, t.actor, { name: 'old', scopes: ['admin'] });
    await revokeApiKey(h.deps, t.actor, revoked.apiKey.id);
    const expiring = await createApiKey(h.deps, t.actor, {
      name: 'short',
      scopes: ['admin'],
      expiresAt: new Date(Date.now() + 60_000),
    });
    await h.db.pool.query(`UPDATE api_keys SET expires_at = now() - interval '1 second' WHERE id = $1`, [
      expiring.apiKey.id,
    ]);
    const cases: Record<string, Record<string, string>> = {
      missing: {},
      'basic scheme': { authorization: `Basic ${Buffer.from('a:b').toString('base64')}` },
      'empty bearer': { authorization: 'Bearer ' },
      malformed: { authorization: 'Bearer bfy_short' },
      'wrong prefix': { authorization: `Bearer xyz_${'a'.repeat(43)}` },
      unknown: { authorization: `Bearer bfy_${'A'.repeat(43)}` },
      revoked: { authorization: `Bearer ${revoked.key}` },
      expired: { authorization: `Bearer ${expiring.key}` },
    };
    for (const [name, headers] of Object.entries(cases)) {
      const res = await call(h, 'GET', '/api/v1/jobs', { headers });
      expect(res.status, name).toBe(401);
      expect(res.headers.get('www-authenticate'), name).toMatch(/^Bearer/);
      expect(res.headers.get('content-type')).toBe('application/problem+json');
      expect(res.body).toMatchObject({
        status: 401,
        title: 'Unauthorized',
        type: expect.stringContaining('unauthenticated'),
      });
    }
    expect((await call(h, 'GET', '/api/v1/jobs', { key: t.key })).status).toBe(200);
    expect((await call(h, 'GET', '/api/v1/jobs', { headers: { authorization: `bearer ${t.key}` } })).status).toBe(200);
  });

  it('healthz and openapi.json need no key', async () => {
    expect((await call(h, 'GET', '/api/v1/healthz')).body).toEqual({ status: 'ok' });
    expect((await call(h, 'GET', '/api/v1/openapi.json')).status).toBe(200);
  });
});

describe('scopes', () => {
  it('enforces the scope of each route with 403; admin implies all, write implies read', async () => {
    const t = await makeTenant(h);
    const owner = client(h, t.key);
    const jobId = (await owner.post('/api/v1/jobs', jobBody())).body.id;
    const runId = await insertRun(h, { tenantId: t.tenantId, jobId, status: 'dead' });
    const keyWith = async (scopes: Parameters<typeof createApiKey>[2]['scopes']) =>
      client(h, (await createApiKey(h.deps, t.actor, { name: scopes.join(','), scopes })).key);

    const jobsRead = await keyWith(['jobs:read']);
    expect((await jobsRead.get('/api/v1/jobs')).status).toBe(200);
    expect((await jobsRead.get(`/api/v1/jobs/${jobId}`)).status).toBe(200);
    expect((await jobsRead.get('/api/v1/schedule/preview?expression=*+*+*+*+*')).status).toBe(200);
    const denied = await jobsRead.post('/api/v1/jobs', jobBody());
    expect(denied.status).toBe(403);
    expect(denied.body).toMatchObject({ status: 403, title: 'Forbidden' });
    expect((await jobsRead.post(`/api/v1/jobs/${jobId}/pause`)).status).toBe(403);
    expect((await jobsRead.get(`/api/v1/jobs/${jobId}/runs`)).status).toBe(403);
    expect((await jobsRead.get('/api/v1/signing-secret')).status).toBe(403);

    const jobsWrite = await keyWith(['jobs:write']);
    expect((await jobsWrite.get('/api/v1/jobs')).status).toBe(200);
    expect((await jobsWrite.patch(`/api/v1/jobs/${jobId}`, { name: 'x' })).status).toBe(200);
    expect((await jobsWrite.post(`/api/v1/jobs/${jobId}/trigger`)).status).toBe(403);

    const runsRead = await keyWith(['runs:read']);
    expect((await runsRead.get(`/api/v1/runs/${runId}`)).status).toBe(200);
    expect((await runsRead.get('/api/v1/dead-letter')).status).toBe(200);
    expect((await runsRead.get('/api/v1/jobs')).status).toBe(403);
    expect((await runsRead.post(`/api/v1/runs/${runId}/replay`)).status).toBe(403);

    const runsWrite = await keyWith(['runs:write']);
    expect((await runsWrite.post(`/api/v1/jobs/${jobId}/trigger`)).status).toBe(201);
    expect((await runsWrite.post('/api/v1/dead-letter/replay', { runIds: [runId], dryRun: true })).status).toBe(200);
    expect((await runsWrite.post('/api/v1/signing-secret/rotate')).status).toBe(403);

    const admin = await keyWith(['admin']);
    expect((await admin.get('/api/v1/signing-secret')).status).toBe(200);
    expect((await admin.post(`/api/v1/runs/${runId}/replay`)).status).toBe(201);
  });
});

describe('API key lifecycle', () => {
  it('create (plaintext once), use, list, revoke, then 401', async () => {
    const t = await makeTenant(h);
    const created = await createApiKey(h.deps, t.actor, { name: 'ci', scopes: ['jobs:read', 'jobs:read'] });
    expect(created.key).toMatch(/^bfy_[A-Za-z0-9_-]{43}$/);
    expect(created.apiKey).toMatchObject({
      name: 'ci',
      scopes: ['jobs:read'],
      prefix: created.key.slice(0, 12),
      revokedAt: null,
      lastUsedAt: null,
    });
    const { rows } = await h.db.pool.query('SELECT key_hash FROM api_keys WHERE id = $1', [created.apiKey.id]);
    expect(Buffer.from(rows[0].key_hash).toString('utf8')).not.toContain(created.key);

    expect((await call(h, 'GET', '/api/v1/jobs', { key: created.key })).status).toBe(200);
    const listed = (await listApiKeys(h.deps, t.actor)).find((k) => k.id === created.apiKey.id);
    expect(listed?.lastUsedAt).not.toBeNull();
    expect(JSON.stringify(await listApiKeys(h.deps, t.actor))).not.toContain(created.key);

    const revoked = await revokeApiKey(h.deps, t.actor, created.apiKey.id);
    expect(revoked.revokedAt).not.toBeNull();
    expect((await revokeApiKey(h.deps, t.actor, created.apiKey.id)).revokedAt).toBe(revoked.revokedAt);
    expect((await call(h, 'GET', '/api/v1/jobs', { key: created.key })).status).toBe(401);

    const other = await makeTenant(h);
    await expect(revokeApiKey(h.deps, other.actor, created.apiKey.id)).rejects.toMatchObject({ code: 'not_found' });
    const audit = await listAuditLog(h.deps, t.actor, { targetType: 'api_key' });
    expect(audit.data.map((e) => e.action)).toEqual(['api_key.revoked', 'api_key.created']);
  });

  it('a key revoked elsewhere (another web process) is refused within KEY_CACHE_MS', async () => {
    const t = await makeTenant(h);
    const created = await createApiKey(h.deps, t.actor, { name: 'worker', scopes: ['jobs:read'] });
    expect((await call(h, 'GET', '/api/v1/jobs', { key: created.key })).status).toBe(200);
    // Revoked by another process: this one learns of it when its cached lookup runs out.
    await h.db.pool.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1', [created.apiKey.id]);
    h.clock.advance(KEY_CACHE_MS);
    expect((await call(h, 'GET', '/api/v1/jobs', { key: created.key })).status).toBe(401);
  });

  it('records last use at most once a minute', async () => {
    const t = await makeTenant(h);
    const lastUsed = async () =>
      (await h.db.pool.query('SELECT last_used_at FROM api_keys WHERE tenant_id = $1', [t.tenantId])).rows[0]
        .last_used_at as Date;
    await call(h, 'GET', '/api/v1/jobs', { key: t.key });
    const first = await lastUsed();
    await call(h, 'GET', '/api/v1/jobs', { key: t.key });
    await call(h, 'GET', '/api/v1/jobs', { key: t.key });
    expect((await lastUsed()).getTime()).toBe(first.getTime());
    h.clock.advance(61_000);
    try {
      await call(h, 'GET', '/api/v1/jobs', { key: t.key });
      expect((await lastUsed()).getTime()).toBeGreaterThan(first.getTime());
    } finally {
      h.clock.advance(-61_000);
    }
  });

  it('only admins manage keys', async () => {
    const t = await makeTenant(h);
    const viewer = { type: 'user' as const, id: 'usr_x', tenantId: t.tenantId, role: 'viewer' as const };
    await expect(listApiKeys(h.deps, viewer)).rejects.toMatchObject({ code: 'forbidden' });
    await expect(createApiKey(h.deps, viewer, { name: 'x', scopes: ['admin'] })).rejects.toMatchObject({
      code: 'forbidden',
    });
  });
});

describe('rate limits', () => {
  it('answers 429 with Retry-After once the burst is spent, per key', async () => {
    const t = await makeTenant(h);
    await h.db.pool.query('UPDATE tenants SET rate_limit_per_second = 1, rate_limit_burst = 3 WHERE id = $1', [
      t.tenantId,
    ]);
    const results = [];
    for (let i = 0; i < 6; i++) results.push(await call(h, 'GET', '/api/v1/jobs', { key: t.key }));
    expect(results[0]?.status).toBe(200);
    expect(results[0]?.headers.get('ratelimit-limit')).toBe('3');
    expect(results[0]?.headers.get('ratelimit-remaining')).toBe('2');
    const limited = results.filter((r) => r.status === 429);
    expect(limited.length).toBeGreaterThanOrEqual(2);
    const retryAfter = limited[0]?.headers.get('retry-after') ?? '';
    expect(retryAfter).toMatch(/^[1-9]\d*$/);
    expect(limited[0]?.headers.get('content-type')).toBe('application/problem+json');
    expect(limited[0]?.body).toMatchObject({ status: 429, title: 'Too many requests' });

    // Another key of the same tenant has its own bucket; public routes are not limited.
    const second = await createApiKey(h.deps, t.actor, { name: 'second', scopes: ['jobs:read'] });
    expect((await call(h, 'GET', '/api/v1/jobs', { key: second.key })).status).toBe(200);
    expect((await call(h, 'GET', '/api/v1/healthz')).status).toBe(200);
  });

  it('concurrent requests never take more tokens than the bucket holds', async () => {
    const t = await makeTenant(h);
    await h.db.pool.query('UPDATE tenants SET rate_limit_per_second = 1, rate_limit_burst = 5 WHERE id = $1', [
      t.tenantId,
    ]);
    const results = await Promise.all(Array.from({ length: 20 }, () => call(h, 'GET', '/api/v1/jobs', { key: t.key })));
    const ok = results.filter((r) => r.status === 200).length;
    expect(ok).toBeGreaterThanOrEqual(5);
    expect(ok).toBeLessThanOrEqual(6); // 5 + at most one refilled token during the burst
    expect(results.filter((r) => r.status === 429)).toHaveLength(20 - ok);
  });

  it('a crowd larger than what is left gets what is left, and the rest 429', async () => {
    const t = await makeTenant(h);
    await h.db.pool.query('UPDATE tenants SET rate_limit_per_second = 1, rate_limit_burst = 5 WHERE id = $1', [
      t.tenantId,
    ]);
    for (let i = 0; i < 3; i++) expect((await call(h, 'GET', '/api/v1/jobs', { key: t.key })).status).toBe(200);
    const results = await Promise.all(Array.from({ length: 4 }, () => call(h, 'GET', '/api/v1/jobs', { key: t.key })));
    const ok = results.filter((r) => r.status === 200).length;
    expect(ok).toBeGreaterThanOrEqual(2);
    expect(ok).toBeLessThanOrEqual(3); // 2 + at most one refilled token meanwhile
    for (const r of results.filter((r) => r.status === 429)) expect(r.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
  });
});

describe('tenant isolation', () => {
  it("answers 404 for another tenant's objects on every route with an id, and changes nothing", async () => {
    const a = await makeTenant(h);
    const b = await makeTenant(h);
    const apiA = client(h, a.key);
    const apiB = client(h, b.key);
    const jobId = (await apiA.post('/api/v1/jobs', jobBody())).body.id;
    const dead = await insertRun(h, { tenantId: a.tenantId, jobId, status: 'dead' });
    const pending = await insertRun(h, { tenantId: a.tenantId, jobId, status: 'pending', finishedAt: null });
    const before = await counts(h);
    const jobBefore = (await apiA.get(`/api/v1/jobs/${jobId}`)).body;

    const attempts: [string, Promise<{ status: number }>][] = [
      ['GET job', apiB.get(`/api/v1/jobs/${jobId}`)],
      ['PATCH job', apiB.patch(`/api/v1/jobs/${jobId}`, { name: 'stolen' })],
      ['DELETE job', apiB.del(`/api/v1/jobs/${jobId}`)],
      ['pause', apiB.post(`/api/v1/jobs/${jobId}/pause`)],
      ['resume', apiB.post(`/api/v1/jobs/${jobId}/resume`)],
      ['trigger', apiB.post(`/api/v1/jobs/${jobId}/trigger`)],
      ['job runs', apiB.get(`/api/v1/jobs/${jobId}/runs`)],
      ['GET run', apiB.get(`/api/v1/runs/${dead}`)],
      ['cancel', apiB.post(`/api/v1/runs/${pending}/cancel`)],
      ['replay', apiB.post(`/api/v1/runs/${dead}/replay`)],
      ['dead letter by job', apiB.get(`/api/v1/dead-letter?jobId=${jobId}`)],
      ['replay all of job', apiB.post('/api/v1/dead-letter/replay', { all: true, jobId })],
    ];
    for (const [name, promise] of attempts) {
      const res = await promise;
      expect(res.status, name).toBe(404);
    }
    expect((await apiB.post('/api/v1/dead-letter/replay', { runIds: [dead] })).body).toEqual({ replayed: 0 });
    expect((await apiB.get('/api/v1/dead-letter')).body.data).toEqual([]);
    expect((await apiB.get('/api/v1/jobs')).body.data).toEqual([]);
    expect(await counts(h)).toEqual(before);
    expect((await apiA.get(`/api/v1/jobs/${jobId}`)).body).toEqual(jobBefore);
    expect((await apiA.get(`/api/v1/runs/${pending}`)).body.status).toBe('pending');
    expect((await apiB.get('/api/v1/signing-secret')).body.secret).not.toBe(
      (await apiA.get('/api/v1/signing-secret')).body.secret,
    );
  });
});
