// amqp and nats targets through /api/v1/jobs: created with their defaults, answered with the
// URL's password as ***, changed by PATCH, and refused with field errors when malformed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Job } from '../src/index';
import { client, createHarness, type Harness, jobBody, makeTenant } from './support';

let h: Harness;
let api: ReturnType<typeof client>;

beforeAll(async () => {
  h = await createHarness();
  api = client(h, (await makeTenant(h)).key);
});
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
