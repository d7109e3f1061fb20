import { existsSync, statSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { jsonResponse, memoryCli, type Recorded } from '../test/memory';
import { configPath } from './config';

const job = {
  id: 'job_1',
  name: 'n',
  schedule: { type: 'interval', everySeconds: 300 },
  target: { type: 'http', url: 'https://x.test', method: 'POST', headers: {} },
  payload: null,
  retry: { maxAttempts: 5, initialDelaySeconds: 10, maxDelaySeconds: 3600 },
  timeoutSeconds: 30,
  priority: 'normal',
  misfirePolicy: 'run_once',
  overlapPolicy: 'allow',
  status: 'active',
  nextRunAt: '2026-03-01T12:05:00.000Z',
  createdAt: '2026-03-01T12:00:00.000Z',
  updatedAt: '2026-03-01T12:00:00.000Z',
};

const ok = () => jsonResponse(200, job);

describe('usage errors exit 2', () => {
  it.each([
    [[]],
    [['jobs']],
    [['jobs', 'list', '--bogus']],
    [['nope']],
    [['runs', 'list']],
    [['jobs', 'get']],
    [['jobs', 'list', '--status', 'sleeping']],
    [['jobs', 'list', '--limit', '501']],
    [['jobs', 'create', '--cron', '* * * * *', '--every', '5m']],
    [['jobs', 'create', '--every', 'often']],
    [['jobs', 'create', '--at', 'tomorrow']],
    [['jobs', 'create', '--payload', '{bad']],
    [['jobs', 'create', '--header', 'nocolon']],
    [['jobs', 'create', '--name', 'n']],
    [['dlq', 'replay']],
    [['dlq', 'replay', '--run', 'run_1', '--job', 'job_1']],
    [['dlq', 'replay', '--run', 'run_1', '--all']],
  ])('belfry %j', async (argv) => {
    const cli = memoryCli(ok);
    const out = await cli.exec(...argv);
    expect(out.code).toBe(2);
    expect(out.stderr).not.toBe('');
    expect(cli.requests).toHaveLength(0);
  });

  it('help and version exit 0', async () => {
    const cli = memoryCli(ok);
    expect(await cli.exec('--version')).toMatchObject({ code: 0, stdout: '0.0.0-test\n' });
    const help = await cli.exec('jobs', 'create', '--help');
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('--idempotency-key');
  });

  it('says which flags jobs create is missing', async () => {
    const out = await memoryCli(ok).exec('jobs', 'create', '--name', 'n', '--cron', '0 * * * *');
    expect(out.stderr).toBe('error: jobs create needs --url, --queue or --image (or --file job.json)\n');
  });
});

describe('jobs', () => {
  it('create turns flags into the request body', async () => {
    const cli = memoryCli(() => jsonResponse(201, job));
    const out = await cli.exec(
      'jobs',
      'create',
      '--name',
      'n',
      '--every',
      '5m',
      '--url',
      'https://x.test',
      '--method',
      'put',
      '--header',
      'x-a: 1',
      '--header',
      'x-b:2',
      '--payload',
      '{"a":1}',
      '--max-attempts',
      '3',
      '--timeout',
      '2m',
      '--priority',
      'HIGH',
      '--misfire',
      'catch-up',
      '--overlap',
      'skip',
      '--idempotency-key',
      'k',
    );
    expect(out).toMatchObject({ code: 0, stderr: '' });
    expect(out.stdout).toContain('Created job_1 (n).');
    const [req] = cli.requests;
    expect(req?.method).toBe('POST');
    expect(req?.url.pathname).toBe('/api/v1/jobs');
    expect(req?.headers.get('idempotency-key')).toBe('k');
    expect(req?.body).toEqual({
      name: 'n',
      schedule: { type: 'interval', everySeconds: 300 },
      target: { type: 'http', url: 'https://x.test', method: 'PUT', headers: { 'x-a': '1', 'x-b': '2' } },
      payload: { a: 1 },
      retry: { maxAttempts: 3 },
      timeoutSeconds: 120,
      priority: 'high',
      misfirePolicy: 'catch_up',
      overlapPolicy: 'skip',
    });
  });

  it('create --at +5m sends an absolute time', async () => {
    const cli = memoryCli(() => jsonResponse(201, job));
    await cli.exec('jobs', 'create', '--name', 'n', '--at', '+5m', '--url', 'https://x.test', '--json');
    expect(cli.requests[0]?.body).toMatchObject({ schedule: { type: 'once', runAt: '2026-03-01T12:05:00.000Z' } });
  });

  it('create --file - reads the body from stdin', async () => {
    const body = { name: 'f', schedule: { type: 'cron', expression: '0 7 * * *' }, target: { url: 'https://x.test' } };
    const cli = memoryCli(() => jsonResponse(201, job), { stdin: JSON.stringify(body) });
    const out = await cli.exec('jobs', 'create', '--file', '-', '--json');
    expect(out.code).toBe(0);
    expect(JSON.parse(out.stdout)).toEqual(job);
    expect(cli.requests[0]?.body).toEqual(body);
  });

  it('create reports an unreadable file as exit 1', async () => {
    const out = await memoryCli(ok).exec('jobs', 'create', '--file', '/nonexistent/job.json');
    expect(out).toMatchObject({ code: 1, stderr: 'error: --file /nonexistent/job.json: no such file\n' });
  });

  it('shows validation errors with the field and the flag that sets it', async () => {
    const cli = memoryCli(() =>
      jsonResponse(400, {
        title: 'Invalid request',
        status: 400,
        detail: 'schedule.expression: bad minute field',
        errors: [{ path: 'schedule.expression', message: 'bad minute field' }],
      }),
    );
    const out = await cli.exec('jobs', 'create', '--name', 'n', '--cron', '99 * * * *', '--url', 'https://x.test');
    expect(out.code).toBe(1);
    expect(out.stderr).toBe('error: schedule.expression: bad minute field (--cron)\n');
  });

  it('lists several field errors under the title, and keeps a detail that says something else', async () => {
    const errors = [
      { path: 'schedule.expression', message: 'bad minute field' },
      { path: 'target.headers.host', message: 'is reserved' },
      { path: 'extra', message: 'unknown field' },
    ];
    const several = memoryCli(() =>
      jsonResponse(400, {
        title: 'Invalid request',
        status: 400,
        detail: 'schedule.expression: bad minute field',
        errors,
      }),
    );
    const out = await several.exec('jobs', 'create', '--name', 'n', '--cron', '99 * * * *', '--url', 'https://x.test');
    expect(out.stderr).toBe(
      'error: Invalid request:\n  schedule.expression: bad minute field (--cron)\n  target.headers.host: is reserved (--header)\n  extra: unknown field\n',
    );
    const other = memoryCli(() =>
      jsonResponse(400, {
        status: 400,
        detail: 'give either runIds or all: true',
        errors: [{ path: '', message: 'give either runIds or all: true' }],
      }),
    );
    expect((await other.exec('dlq', 'replay', '--all')).stderr).toBe('error: give either runIds or all: true\n');
  });

  it('404 prints the detail, 401 says to log in', async () => {
    const notFound = await memoryCli(() =>
      jsonResponse(404, { status: 404, title: 'Not found', detail: 'job job_x not found' }),
    ).exec('jobs', 'get', 'job_x');
    expect(notFound).toMatchObject({ code: 1, stdout: '', stderr: 'error: job job_x not found\n' });
    const unauth = await memoryCli(() => jsonResponse(401, { status: 401, detail: 'invalid API key' })).exec(
      'jobs',
      'list',
    );
    expect(unauth.code).toBe(1);
    expect(unauth.stderr).toContain('belfry login');
  });

  it('list --all follows the cursor; --json prints one page of everything', async () => {
    const pages: Record<string, unknown> = {
      '': { data: [job], nextCursor: 'c1' },
      c1: { data: [{ ...job, id: 'job_2' }], nextCursor: null },
    };
    const cli = memoryCli((req: Recorded) => jsonResponse(200, pages[req.url.searchParams.get('cursor') ?? '']));
    const out = await cli.exec('jobs', 'list', '--all', '--json', '--status', 'active');
    expect(JSON.parse(out.stdout)).toEqual({ data: [job, { ...job, id: 'job_2' }], nextCursor: null });
    expect(cli.requests.map((r) => r.url.search)).toEqual([
      '?limit=500&status=active',
      '?limit=500&cursor=c1&status=active',
    ]);
  });

  it('list without --all prints a table and points at the next page on stderr', async () => {
    const out = await memoryCli(() => jsonResponse(200, { data: [job], nextCursor: 'c1' })).exec('jobs', 'list');
    expect(out.code).toBe(0);
    expect(out.stdout.split('\n')[0]).toMatch(/^ID\s+NAME\s+STATUS/);
    expect(out.stdout).toContain('every 5m');
    expect(out.stdout).toContain('in 5m');
    expect(out.stderr).toBe('(more: --cursor c1, or --all)\n');
  });

  it('delete tells what it did; with --json it prints the (empty) body', async () => {
    const cli = memoryCli(() => new Response(null, { status: 204 }));
    expect(await cli.exec('jobs', 'delete', 'job_1')).toMatchObject({ code: 0, stdout: 'Deleted job_1.\n' });
    expect(await cli.exec('jobs', 'delete', 'job_1', '--json')).toMatchObject({ code: 0, stdout: '' });
    expect(cli.requests.map((r) => `${r.method} ${r.url.pathname}`)).toEqual([
      'DELETE /api/v1/jobs/job_1',
      'DELETE /api/v1/jobs/job_1',
    ]);
  });

  it('pause, resume and trigger call their endpoints', async () => {
    const run = {
      id: 'run_1',
      jobId: 'job_1',
      scheduledTime: job.createdAt,
      status: 'pending',
      skipReason: null,
      attempt: 0,
      trigger: 'manual',
      replayOf: null,
      createdAt: job.createdAt,
      startedAt: null,
      finishedAt: null,
      attempts: [],
    };
    const cli = memoryCli((req) => (req.url.pathname.endsWith('/trigger') ? jsonResponse(201, run) : ok()));
    expect((await cli.exec('jobs', 'pause', 'job_1')).stdout).toMatch(/^Paused job_1 \(n\)/);
    expect((await cli.exec('jobs', 'resume', 'job_1')).stdout).toMatch(/^Resumed job_1 \(n\)/);
    expect((await cli.exec('jobs', 'trigger', 'job_1')).stdout).toMatch(/^Triggered job_1: run run_1 \(pending\)/);
    expect(cli.requests.map((r) => `${r.method} ${r.url.pathname}`)).toEqual([
      'POST /api/v1/jobs/job_1/pause',
      'POST /api/v1/jobs/job_1/resume',
      'POST /api/v1/jobs/job_1/trigger',
    ]);
  });
});

describe('dlq replay', () => {
  it('sends run ids, or all with a job and dry run', async () => {
    const cli = memoryCli((req) =>
      jsonResponse(200, (req.body as { dryRun?: boolean }).dryRun ? { wouldReplay: 3 } : { replayed: 2 }),
    );
    expect((await cli.exec('dlq', 'replay', '--run', 'run_a', 'run_b')).stdout).toBe('Replayed 2 runs.\n');
    expect((await cli.exec('dlq', 'replay', '--all', '--job', 'job_1', '--dry-run')).stdout).toBe(
      'Would replay 3 runs (dry run: nothing changed).\n',
    );
    expect(cli.requests.map((r) => r.body)).toEqual([
      { runIds: ['run_a', 'run_b'] },
      { all: true, jobId: 'job_1', dryRun: true },
    ]);
  });
});

describe('login', () => {
  it('refuses to run commands before login', async () => {
    const cli = memoryCli(ok, { env: { BELFRY_URL: '', BELFRY_TOKEN: '' } });
    const out = await cli.exec('jobs', 'list');
    expect(out.code).toBe(1);
    expect(out.stderr).toMatch(/^error: not logged in: run `belfry login/);
  });

  it('verifies the key, then stores it 0600', async () => {
    const cli = memoryCli(() => jsonResponse(200, { data: [], nextCursor: null }), {
      env: { BELFRY_URL: '', BELFRY_TOKEN: '' },
    });
    const out = await cli.exec('login', '--url', 'http://localhost:3000/', '--token', 'bfy_good');
    expect(out.code).toBe(0);
    const file = configPath(cli.ctx.env.configDir);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(cli.requests[0]?.url.toString()).toBe('http://localhost:3000/api/v1/jobs?limit=1');
    expect(cli.requests[0]?.headers.get('authorization')).toBe('Bearer bfy_good');
    expect((await cli.exec('logout')).stdout).toMatch(/^Logged out/);
    expect(existsSync(file)).toBe(false);
  });

  it('does not store a rejected key', async () => {
    const cli = memoryCli(() => jsonResponse(401, { status: 401, detail: 'invalid API key' }), {
      env: { BELFRY_URL: '', BELFRY_TOKEN: '' },
    });
    const out = await cli.exec('login', '--url', 'http://localhost:3000', '--token', 'bfy_bad');
    expect(out).toMatchObject({
      code: 1,
      stderr: 'error: http://localhost:3000 rejected this API key: invalid API key\n',
    });
    expect(existsSync(configPath(cli.ctx.env.configDir))).toBe(false);
  });
});
