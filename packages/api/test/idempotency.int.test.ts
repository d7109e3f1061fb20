// Idempotent job creation: same key + same body answers the same job (also under
// concurrency), a different body is 422, keys are per tenant and expire after 24 hours.
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

describe('Idempotency-Key', () => {
  it('same key + same body answers the same job; a different body is 422', async () => {
    const key = `idem-${Date.now()}`;
    const first = await api.post('/api/v1/jobs', jobBody({ name: 'idem' }), { headers: { 'idempotency-key': key } });
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const before = await counts(h);
    // Key order and explicit defaults do not change what the request means.
    const again = await api.post(
      '/api/v1/jobs',
      { priority: 'normal', ...jobBody({ name: 'idem' }) },
      { headers: { 'idempotency-key': key } },
    );
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.headers.get('location')).toBe(`/api/v1/jobs/${first.body.id}`);
    expect(again.body).toEqual(first.body);
    expect(await counts(h)).toEqual(before);
    const different = await api.post('/api/v1/jobs', jobBody({ name: 'other' }), {
      headers: { 'idempotency-key': key },
    });
    expect(different.status).toBe(422);
    expect(different.headers.get('content-type')).toBe('application/problem+json');
    expect(await counts(h)).toEqual(before);
  });

  it('two concurrent requests with one key create one job', async () => {
    const key = `race-${Date.now()}`;
    const before = (await counts(h)).jobs;
    const results = await Promise.all(
      Array.from({ length: 8 }, () =>
        api.post('/api/v1/jobs', jobBody({ name: 'race' }), { headers: { 'idempotency-key': key } }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(Array(8).fill(201));
    expect(new Set(results.map((r) => r.body.id)).size).toBe(1);
    expect(results.filter((r) => r.headers.get('idempotent-replayed') === 'true')).toHaveLength(7);
    expect((await counts(h)).jobs).toBe(before + 1);
  });

  it('keys are per tenant and expire after 24 hours', async () => {
    const other = await makeTenant(h);
    const key = `shared-${Date.now()}`;
    const a = await api.post('/api/v1/jobs', jobBody(), { headers: { 'idempotency-key': key } });
    const b = await client(h, other.key).post('/api/v1/jobs', jobBody(), { headers: { 'idempotency-key': key } });
    expect(a.body.id).not.toBe(b.body.id);
    await h.db.pool.query(`UPDATE idempotency_keys SET created_at = now() - interval '25 hours' WHERE key = $1`, [key]);
    const c = await api.post('/api/v1/jobs', jobBody(), { headers: { 'idempotency-key': key } });
    expect(c.status).toBe(201);
    expect(c.body.id).not.toBe(a.body.id);
    expect(c.headers.get('idempotent-replayed')).toBeNull();
  });

  it('rejects a malformed key with 400', async () => {
    const before = await counts(h);
    const res = await api.post('/api/v1/jobs', jobBody(), { headers: { 'idempotency-key': 'x'.repeat(256) } });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ path: 'Idempotency-Key', message: expect.any(String) }]);
    expect(await counts(h)).toEqual(before);
  });
});
