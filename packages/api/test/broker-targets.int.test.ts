// amqp and nats targets through /api/v1/jobs: created with their defaults, answered with the
// URL's password as ***, changed by PATCH, and refused with field errors when malformed.
import { revealTarget } from '@belfry/handlers/schemas';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Job } from '../src/index';
import { client, createHarness, type Harness, jobBody, makeTenant, type TestTenant } from './support';

let h: Harness;
let t: TestTenant;
let api: ReturnType<typeof client>;

beforeAll(async () => {
  h = await createHarness();
  t = await makeTenant(h);
  api = client(h, t.key);
});

/** The row as stored, and the target as the engine gets it (secrets revealed). */
async function stored(jobId: string) {
  const { rows } = await h.db.pool.query<{
    target: Record<string, unknown>;
    target_secrets: Buffer | null;
    raw: string;
  }>('SELECT target, target_secrets, row_to_json(jobs)::text AS raw FROM jobs WHERE id = $1', [jobId]);
  const row = rows[0]!;
  return { ...row, delivered: revealTarget(h.deps.keyring, t.tenantId, row.target, row.target_secrets) };
}
afterAll(() => h.close());

const amqp = { type: 'amqp', url: 'amqp://belfry:s3cret@rabbit.example.com:5672/prod', exchange: 'jobs' };
const nats = { type: 'nats', url: 'nats://belfry:s3cret@nats.example.com:4222', subject: 'reports.daily' };

describe('broker targets', () => {
  it('creates an amqp job with the defaults, and never answers the password', async () => {
    const res = await api.post('/api/v1/jobs', jobBody({ target: { ...amqp, headers: { 'x-team': 'billing' } } }));
    expect(res.status).toBe(201);
    const job = Job.parse(res.body);
    expect(job.target).toEqual({
      type: 'amqp',
      url: 'amqp://belfry:***@rabbit.example.com:5672/prod',
      exchange: 'jobs',
      routingKey: '',
      persistent: true,
      headers: { 'x-team': 'billing' },
    });
    expect(JSON.stringify(res.body)).not.toContain('s3cret');
    const got = await api.get(`/api/v1/jobs/${job.id}`);
    expect(got.body.target.url).toBe('amqp://belfry:***@rabbit.example.com:5672/prod');
    const list = await api.get('/api/v1/jobs');
    expect(JSON.stringify(list.body)).not.toContain('s3cret');
  });

  it('creates a nats job and changes its subject with PATCH', async () => {
    const created = await api.post('/api/v1/jobs', jobBody({ target: nats }));
    expect(created.status).toBe(201);
    expect(created.body.target).toEqual({
      type: 'nats',
      url: 'nats://belfry:***@nats.example.com:4222',
      subject: 'reports.daily',
      headers: {},
    });
    const patched = await api.patch(`/api/v1/jobs/${created.body.id}`, {
      target: { ...nats, subject: 'reports.hourly' },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.target.subject).toBe('reports.hourly');
  });

  it('stores broker passwords sealed; *** sent back keeps them, a new one replaces them', async () => {
    for (const target of [amqp, nats]) {
      const created = await api.post(
        '/api/v1/jobs',
        jobBody({ target: { ...target, headers: { 'x-api-key': 'k-31337' } } }),
      );
      expect(created.status).toBe(201);
      const id = created.body.id as string;
      expect(created.body.target.headers).toEqual({ 'x-api-key': '***' });
      let row = await stored(id);
      expect(row.raw).not.toMatch(/s3cret|k-31337/);
      expect(row.delivered).toMatchObject({ url: target.url, headers: { 'x-api-key': 'k-31337' } });

      // The dashboard's edit form sends back what it was shown.
      const roundTrip = await api.patch(`/api/v1/jobs/${id}`, { target: created.body.target, name: 'renamed' });
      expect(roundTrip.status).toBe(200);
      expect(roundTrip.body.target.url).toBe(created.body.target.url);
      row = await stored(id);
      expect(row.delivered).toMatchObject({ url: target.url, headers: { 'x-api-key': 'k-31337' } });

      const rotated = target.url.replace('s3cret', 'n3w-pass');
      const changed = await api.patch(`/api/v1/jobs/${id}`, { target: { ...created.body.target, url: rotated } });
      expect(changed.status).toBe(200);
      expect(JSON.stringify(changed.body)).not.toContain('n3w-pass');
      expect((await stored(id)).delivered).toMatchObject({ url: rotated });
    }
  });

  it('refuses malformed broker targets with a field error each', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ ...amqp, url: 'https://rabbit.example.com' }, 'target.url'],
      [{ ...amqp, exchange: 'bad name' }, 'target.exchange'],
      [{ type: 'amqp', url: amqp.url }, 'target.exchange'],
      [{ ...nats, subject: 'reports.*' }, 'target.subject'],
      [{ ...nats, url: 'nats://h/path' }, 'target.url'],
      [{ ...nats, exchange: 'x' }, 'target.exchange'],
    ];
    for (const [target, path] of cases) {
      const res = await api.post('/api/v1/jobs', jobBody({ target }));
      expect(res.status, JSON.stringify(target)).toBe(400);
      expect(res.headers.get('content-type')).toBe('application/problem+json');
      expect(res.body.errors.map((e: { path: string }) => e.path)).toContain(path);
    }
  });
});
