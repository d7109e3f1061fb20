// Container targets through the REST API: the operator's image allow-list (422 when unset or
// not matched, at create and at update), the defaults answered back, and malformed input
// (image reference syntax, oversized commands, reserved env names) refused with 400.
import { ImageAllowList } from '@belfry/handlers/schemas';
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
afterAll(() => h.close());

const container = (fields: Record<string, unknown> = {}) =>
  jobBody({ target: { type: 'container', image: 'registry.example.com/jobs/report:1.4', ...fields } });

function expectProblem(res: { status: number; headers: Headers; body: unknown }, status: number, path: string) {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toBe('application/problem+json');
  expect((res.body as { errors?: { path: string }[] }).errors?.map((e) => e.path)).toContain(path);
}

describe('container targets', () => {
  it('are refused with 422 while BELFRY_CONTAINER_IMAGES is unset', async () => {
    h.deps.containerImages = undefined;
    const res = await api.post('/api/v1/jobs', container());
    expectProblem(res, 422, 'target.image');
    expect((res.body as { detail: string }).detail).toMatch(/BELFRY_CONTAINER_IMAGES is not set/);
  });

  it('are created when the image matches a pattern, with the contract defaults', async () => {
    h.deps.containerImages = ImageAllowList.parse('registry.example.com/jobs/*');
    const res = await api.post('/api/v1/jobs', container({ command: ['report', '--daily'], env: { KIND: 'daily' } }));
    expect(res.status).toBe(201);
    expect(Job.parse(res.body).target).toEqual({
      type: 'container',
      image: 'registry.example.com/jobs/report:1.4',
      command: ['report', '--daily'],
      env: { KIND: 'daily' },
      memoryMb: 512,
      cpus: 1,
      network: 'none',
      pullPolicy: 'if-missing',
    });
  });

  it('answers env values named like credentials as ***, and keeps them when *** is sent back', async () => {
    h.deps.containerImages = ImageAllowList.parse('registry.example.com/jobs/*');
    const res = await api.post('/api/v1/jobs', container({ env: { API_TOKEN: 's3cr3t', KIND: 'daily' } }));
    expect(res.status).toBe(201);
    const job = Job.parse(res.body);
    expect(job.target).toMatchObject({ env: { API_TOKEN: '***', KIND: 'daily' } });
    const { rows } = await h.db.pool.query<{ target: string }>('SELECT target::text FROM jobs WHERE id = $1', [job.id]);
    expect(rows[0]?.target).not.toContain('s3cr3t');
  });

  it('refuses an image outside the patterns with 422, at create and at update', async () => {
    h.deps.containerImages = ImageAllowList.parse('registry.example.com/jobs/*');
    expectProblem(
      await api.post('/api/v1/jobs', container({ image: 'docker.io/library/alpine:3' })),
      422,
      'target.image',
    );
    const created = Job.parse((await api.post('/api/v1/jobs', container())).body);
    const patched = await api.patch(`/api/v1/jobs/${created.id}`, {
      target: { type: 'container', image: 'registry.example.com/other/x:1' },
    });
    expectProblem(patched, 422, 'target.image');
    const still = Job.parse((await api.get(`/api/v1/jobs/${created.id}`)).body);
    expect(still.target).toMatchObject({ image: 'registry.example.com/jobs/report:1.4' });
  });

  it('refuses malformed fields with 400 problem+json, whatever the allow-list', async () => {
    h.deps.containerImages = ImageAllowList.parse('*');
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ image: 'Registry.Example.com/UPPER CASE' }, 'target.image'],
      [{ image: 'busybox::1' }, 'target.image'],
      [{ image: '' }, 'target.image'],
      [{ command: Array.from({ length: 300 }, () => 'x') }, 'target.command'],
      [{ command: ['x'.repeat(5000)] }, 'target.command.0'],
      [{ command: Array.from({ length: 20 }, () => 'y'.repeat(4000)) }, 'target.command'],
      [{ command: 'echo hi' }, 'target.command'],
      [{ env: { BELFRY_RUN_ID: 'forged' } }, 'target.env.BELFRY_RUN_ID'],
      [{ env: { '1BAD': 'x' } }, 'target.env.1BAD'],
      [{ user: 'root; rm -rf /' }, 'target.user'],
      [{ workingDir: 'relative/path' }, 'target.workingDir'],
      [{ memoryMb: 1 }, 'target.memoryMb'],
      [{ cpus: 0 }, 'target.cpus'],
      [{ network: 'host' }, 'target.network'],
      [{ pullPolicy: 'sometimes' }, 'target.pullPolicy'],
      [{ privileged: true }, 'target.privileged'],
    ];
    for (const [fields, path] of cases) {
      const res = await api.post('/api/v1/jobs', container(fields));
      expect(res.status, JSON.stringify(fields).slice(0, 80)).toBe(400);
      expect(res.headers.get('content-type')).toBe('application/problem+json');
      const paths = (res.body as { errors: { path: string }[] }).errors.map((e) => e.path);
      expect(paths, JSON.stringify(fields).slice(0, 80)).toContain(path);
    }
  });
});
