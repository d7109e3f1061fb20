// Write-only target fields (docs/api.md, "Write-only secrets in targets") through the real router:
// credential-named header values are never answered (to any key or role), never stored in the
// clear, kept when '***' is sent back, and refused as '***' where nothing is stored.
import { revealTarget } from '@belfry/handlers/schemas';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, getJob, listJobs } from '../src/index';
import { client, createHarness, type Harness, jobBody, makeTenant, type TestTenant } from './support';

let h: Harness;
let t: TestTenant;
let writer: ReturnType<typeof client>;
let reader: ReturnType<typeof client>;

const BEARER = 'Bearer sk_live_4f9a7c1e';
const headers = { Authorization: BEARER, 'x-api-key': 'k-31337', 'x-team': 'billing' };
const masked = { Authorization: '***', 'x-api-key': '***', 'x-team': 'billing' };

beforeAll(async () => {
  h = await createHarness();
  t = await makeTenant(h);
  writer = client(h, t.key);
  const readOnly = await createApiKey(h.deps, t.actor, { name: 'read-only', scopes: ['jobs:read'] });
  reader = client(h, readOnly.key);
});
afterAll(() => h.close());

async function stored(jobId: string) {
  const { rows } = await h.db.pool.query<{
    target: Record<string, unknown>;
    target_secrets: Buffer | null;
    raw: string;
  }>('SELECT target, target_secrets, row_to_json(jobs)::text AS raw FROM jobs WHERE id = $1', [jobId]);
  return rows[0]!;
}

/** What the engine hands the handler: the stored target with its secrets revealed. */
async function delivered(jobId: string) {
  const row = await stored(jobId);
  return revealTarget(h.deps.keyring, t.tenantId, row.target, row.target_secrets);
}

async function createWithSecrets(): Promise<string> {
  const res = await writer.post('/api/v1/jobs', jobBody({ target: { url: 'https://example.com/hook', headers } }));
  expect(res.status).toBe(201);
  return res.body.id as string;
}

describe('target secrets', () => {
  it('answers *** for credential-named headers to every reader, in every shape', async () => {
    const id = await createWithSecrets();
    const created = await writer.get(`/api/v1/jobs/${id}`);
    expect(created.body.target.headers).toEqual(masked);
    const viaReader = await reader.get(`/api/v1/jobs/${id}`);
    expect(viaReader.status).toBe(200);
    expect(viaReader.body.target.headers).toEqual(masked);
    expect(viaReader.text).not.toContain('sk_live');
    const list = await reader.get('/api/v1/jobs');
    expect(list.text).not.toMatch(/sk_live|k-31337/);
    const viewer = { type: 'user', id: 'usr_viewer', tenantId: t.tenantId, role: 'viewer' } as const;
    expect((await getJob(h.deps, viewer, id)).target).toMatchObject({ headers: masked });
    expect(JSON.stringify(await listJobs(h.deps, viewer))).not.toContain('sk_live');
  });

  it('stores them sealed: the row holds no plaintext, and the engine gets it back', async () => {
    const id = await createWithSecrets();
    const row = await stored(id);
    expect(row.target).toMatchObject({ headers: masked });
    expect(row.raw).not.toMatch(/sk_live|k-31337/);
    expect(row.target_secrets?.includes(Buffer.from('sk_live'))).toBe(false);
    expect(await delivered(id)).toMatchObject({ headers });
  });

  it('keeps the stored value when *** is sent back, and takes a new one', async () => {
    const id = await createWithSecrets();
    const job = (await writer.get(`/api/v1/jobs/${id}`)).body;
    const roundTrip = await writer.patch(`/api/v1/jobs/${id}`, { target: job.target, name: 'renamed' });
    expect(roundTrip.status).toBe(200);
    expect(roundTrip.body.target.headers).toEqual(masked);
    expect(await delivered(id)).toMatchObject({ headers });

    const rotated = await writer.patch(`/api/v1/jobs/${id}`, {
      target: { ...job.target, headers: { ...masked, Authorization: 'Bearer sk_live_new' } },
    });
    expect(rotated.status).toBe(200);
    expect(await delivered(id)).toMatchObject({ headers: { ...headers, Authorization: 'Bearer sk_live_new' } });

    // a patch that leaves the target alone keeps it too
    expect((await writer.patch(`/api/v1/jobs/${id}`, { timeoutSeconds: 12 })).status).toBe(200);
    expect(await delivered(id)).toMatchObject({ headers: { 'x-api-key': 'k-31337' } });
  });

  it('refuses *** where nothing is stored, and changes nothing', async () => {
    const created = await writer.post(
      '/api/v1/jobs',
      jobBody({ target: { url: 'https://example.com/hook', headers: { Authorization: '***' } } }),
    );
    expect(created.status).toBe(400);
    expect(created.headers.get('content-type')).toBe('application/problem+json');
    expect(created.body.errors).toEqual([
      { path: 'target.headers.Authorization', message: expect.stringContaining('there is none here') },
    ]);

    const id = await createWithSecrets();
    const before = await stored(id);
    const res = await writer.patch(`/api/v1/jobs/${id}`, {
      target: { url: 'https://example.com/hook', headers: { ...masked, 'x-secret': '***' } },
    });
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { path: string }) => e.path)).toEqual(['target.headers.x-secret']);
    expect((await stored(id)).raw).toBe(before.raw);
  });

  it('masks and seals a job stored in the clear before sealing existed', async () => {
    const id = await createWithSecrets();
    await h.db.pool.query(`UPDATE jobs SET target = $2::jsonb, target_secrets = NULL WHERE id = $1`, [
      id,
      JSON.stringify({ type: 'http', url: 'https://example.com/hook', method: 'POST', headers }),
    ]);
    expect((await reader.get(`/api/v1/jobs/${id}`)).body.target.headers).toEqual(masked);
    expect(await delivered(id)).toMatchObject({ headers });
    expect((await writer.patch(`/api/v1/jobs/${id}`, { name: 'touched' })).status).toBe(200);
    const row = await stored(id);
    expect(row.raw).not.toContain('sk_live');
    expect(await delivered(id)).toMatchObject({ headers });
  });
});
