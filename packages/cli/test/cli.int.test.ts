// End to end: the real `belfry` binary (bin/belfry.mjs, as `npx belfry` runs it) in a child
// process, against the real REST handler over a real database. Each invocation gets a private
// HOME so stored credentials never leak between tests or into the developer's own.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, statSync, writeFileSync, existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENCRYPTION_KEY_MATERIAL, startTestServer, type TestServer } from '../../../test/rest-server';

const root = resolve(import.meta.dirname, '../../..');
const bin = join(root, 'node_modules/.bin/belfry');

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

let server: TestServer;
let apiKey: string;
let home: string;
let configDir: string;

function belfry(args: string[], options: { env?: Record<string, string>; input?: string } = {}): Promise<Result> {
  return run(bin, args, options);
}

function run(
  command: string,
  args: string[],
  options: { env?: Record<string, string>; input?: string } = {},
): Promise<Result> {
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, XDG_CONFIG_HOME: join(home, 'config'), ...options.env };
  // The repository's Node 22 first, as under `npx`.
  env.PATH = `${join(root, 'node_modules/.bin')}${delimiter}${process.env.PATH ?? ''}`;
  for (const name of ['BELFRY_URL', 'BELFRY_TOKEN', 'DATABASE_URL', 'BELFRY_ENCRYPTION_KEY']) {
    if (!options.env?.[name]) delete env[name];
  }
  return new Promise((done, fail) => {
    const child = spawn(command, args, { cwd: root, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString();
    });
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
    });
    child.on('error', fail);
    child.on('close', (code) => done({ code: code ?? -1, stdout, stderr }));
    child.stdin.end(options.input ?? '');
  });
}

async function ok(args: string[], options?: Parameters<typeof belfry>[1]): Promise<string> {
  const r = await belfry(args, options);
  if (r.code !== 0)
    throw new Error(`belfry ${args.join(' ')} exited ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`);
  return r.stdout;
}

const json = async <T = Record<string, unknown>>(args: string[]): Promise<T> =>
  JSON.parse(await ok([...args, '--json'])) as T;

beforeAll(async () => {
  server = await startTestServer();
  apiKey = (await server.createTenant('cli e2e')).apiKey;
  home = mkdtempSync(join(tmpdir(), 'belfry-cli-e2e-'));
  configDir = join(home, 'config', 'belfry');
});
afterAll(() => server?.close());

describe('before login', () => {
  it('npx belfry works from the repository root', async () => {
    const r = await run('npx', ['--no-install', 'belfry', '--version']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`${JSON.parse(readFileSync(join(root, 'packages/cli/package.json'), 'utf8')).version}\n`);
  });

  it('says to log in, exit 1', async () => {
    const r = await belfry(['jobs', 'list']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error: not logged in: run `belfry login --url <url> --token <api key>`/);
  });

  it('exits 2 on a bad flag, with commander usage text', async () => {
    const r = await belfry(['jobs', 'list', '--frobnicate']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("unknown option '--frobnicate'");
  });

  it('refuses a wrong key at login and stores nothing', async () => {
    const r = await belfry(['login', '--url', server.url, '--token', 'bfy_not_a_real_key']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${server.url} rejected this API key`);
    expect(existsSync(join(configDir, 'config.json'))).toBe(false);
  });

  it('names the server it cannot reach', async () => {
    const port = await closedPort();
    const r = await belfry(['jobs', 'list'], { env: { BELFRY_URL: `http://127.0.0.1:${port}`, BELFRY_TOKEN: apiKey } });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`error: cannot reach http://127.0.0.1:${port}: connection refused\n`);
  });
});

describe('with a stored login', () => {
  let cronJobId: string;
  let fileJobId: string;
  let runId: string;

  it('login stores {url, token} readable by the user alone', async () => {
    const out = await ok(['login', '--url', `${server.url}/`, '--token', apiKey]);
    expect(out).toContain(`Logged in to ${server.url}`);
    const file = join(configDir, 'config.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(configDir).mode & 0o777).toBe(0o700);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ url: server.url, token: apiKey });
  });

  it('jobs create from flags', async () => {
    const job = await json<{ id: string; [k: string]: unknown }>([
      'jobs',
      'create',
      '--name',
      'nightly-report',
      '--cron',
      '0 7 * * *',
      '--timezone',
      'Europe/Berlin',
      '--url',
      'https://example.com/hook',
      '--header',
      'x-team: billing',
      '--payload',
      '{"report":"daily"}',
      '--max-attempts',
      '3',
      '--timeout',
      '45s',
      '--priority',
      'high',
      '--misfire',
      'skip',
      '--overlap',
      'skip',
      '--jitter',
      '1m30s',
    ]);
    expect(job).toMatchObject({
      name: 'nightly-report',
      schedule: { type: 'cron', expression: '0 7 * * *', timezone: 'Europe/Berlin' },
      target: { type: 'http', url: 'https://example.com/hook', method: 'POST', headers: { 'x-team': 'billing' } },
      payload: { report: 'daily' },
      retry: { maxAttempts: 3 },
      timeoutSeconds: 45,
      priority: 'high',
      misfirePolicy: 'skip',
      overlapPolicy: 'skip',
      jitterSeconds: 90,
      status: 'active',
    });
    cronJobId = job.id;
  });

  it('jobs create from --file', async () => {
    const file = join(home, 'job.json');
    writeFileSync(
      file,
      JSON.stringify({
        name: 'every-five',
        schedule: { type: 'interval', everySeconds: 300 },
        target: { type: 'http', url: 'https://example.com/five', method: 'PUT' },
      }),
    );
    const out = await ok(['jobs', 'create', '--file', file]);
    const id = /^Created (job_\w+) \(every-five\)\./.exec(out)?.[1];
    expect(id).toBeDefined();
    expect(out).toMatch(/schedule:\s+every 5m/);
    expect(out).toMatch(/target:\s+PUT https:\/\/example.com\/five/);
    fileJobId = id as string;
  });

  it('jobs get, human and JSON', async () => {
    const out = await ok(['jobs', 'get', cronJobId]);
    expect(out).toMatch(/^id:\s+job_/);
    expect(out).toMatch(/schedule:\s+cron 0 7 \* \* \* \(Europe\/Berlin\)/);
    expect(out).toMatch(/next run:\s+\S+Z \(in /);
    const job = await json(['jobs', 'get', cronJobId]);
    expect(job).toMatchObject({ id: cronJobId, name: 'nightly-report' });
  });

  it('jobs list as a table and as JSON, with paging', async () => {
    const table = (await ok(['jobs', 'list'])).trimEnd().split('\n');
    expect(table[0]).toMatch(/^ID\s+NAME\s+STATUS\s+SCHEDULE\s+NEXT RUN\s+TARGET$/);
    expect(table).toHaveLength(3);
    expect(table.join('\n')).toContain(cronJobId);
    expect(table.join('\n')).toMatch(
      new RegExp(`${fileJobId}\\s+every-five\\s+active\\s+every 5m\\s+in \\d+m\\s+PUT https://example.com/five`),
    );
    const page = await json<{ data: { id: string }[]; nextCursor: string | null }>(['jobs', 'list']);
    expect(page.data.map((j) => j.id).sort()).toEqual([cronJobId, fileJobId].sort());
    expect(page.nextCursor).toBeNull();

    const first = await belfry(['jobs', 'list', '--limit', '1']);
    expect(first.code).toBe(0);
    expect(first.stderr).toMatch(/^\(more: --cursor \S+, or --all\)$/m);
    const all = await json<{ data: unknown[] }>(['jobs', 'list', '--limit', '1', '--all']);
    expect(all.data).toHaveLength(2);
  });

  it('pause and resume', async () => {
    expect(await ok(['jobs', 'pause', cronJobId])).toMatch(/^Paused job_\w+ \(nightly-report\): paused/);
    const paused = await json<{ data: { id: string }[] }>(['jobs', 'list', '--status', 'paused']);
    expect(paused.data.map((j) => j.id)).toEqual([cronJobId]);
    const resumed = await json(['jobs', 'resume', cronJobId]);
    expect(resumed).toMatchObject({ id: cronJobId, status: 'active' });
    expect(resumed.nextRunAt).toEqual(expect.any(String));
  });

  it('trigger, then runs list and runs get', async () => {
    const run = await json<{ id: string; jobId: string; trigger: string }>(['jobs', 'trigger', fileJobId]);
    expect(run).toMatchObject({ jobId: fileJobId, trigger: 'manual' });
    runId = run.id;

    const table = await ok(['runs', 'list', '--job', fileJobId]);
    expect(table).toMatch(/^ID\s+STATUS\s+TRIGGER\s+SCHEDULED\s+ATTEMPT\s+DURATION\s+FINISHED/);
    expect(table).toMatch(new RegExp(`${runId}\\s+(pending|running|succeeded|failed|dead)\\s+manual`));
    const page = await json<{ data: { id: string }[] }>(['runs', 'list', '--job', fileJobId]);
    expect(page.data.map((r) => r.id)).toEqual([runId]);

    const detail = await ok(['runs', 'get', runId]);
    expect(detail).toMatch(new RegExp(`^id:\\s+${runId}`));
    expect(detail).toMatch(/trigger:\s+manual/);
    const full = await json<{ id: string; attempts: unknown[] }>(['runs', 'get', runId]);
    expect(full.id).toBe(runId);
    expect(Array.isArray(full.attempts)).toBe(true);
  });

  it('the dead letter is listed and a dry-run replay changes nothing', async () => {
    expect(await ok(['dlq', 'list'])).toBe('The dead letter is empty.\n');
    expect(await ok(['dlq', 'replay', '--all', '--dry-run'])).toBe('Would replay 0 runs (dry run: nothing changed).\n');
  });

  it('delete, after which the job answers 404', async () => {
    expect(await ok(['jobs', 'delete', fileJobId])).toBe(`Deleted ${fileJobId}.\n`);
    const r = await belfry(['jobs', 'get', fileJobId]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error: .*not found/);
    // history is kept
    expect((await json<{ id: string }>(['runs', 'get', runId])).id).toBe(runId);
  });

  it('a bad cron names the field and the flag, exit 1', async () => {
    const r = await belfry([
      'jobs',
      'create',
      '--name',
      'bad',
      '--cron',
      '61 * * * *',
      '--url',
      'https://example.com/hook',
    ]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^error: schedule\.expression: .+ \(--cron\)\n$/);
  });

  it('an unknown job prints the 404 detail, exit 1', async () => {
    const r = await belfry(['jobs', 'get', 'job_01KB3Y8J2Q7Z9V4N6M5X0C1R2T']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error: .*not found\n$/);
  });

  it('logout forgets the credentials', async () => {
    expect(await ok(['logout'])).toMatch(/^Logged out/);
    expect((await belfry(['jobs', 'list'])).stderr).toMatch(/not logged in/);
  });

  it('BELFRY_URL and BELFRY_TOKEN work without a stored login', async () => {
    const page = await json<{ data: { id: string }[] }>(['jobs', 'list']).catch(() => null);
    expect(page).toBeNull();
    const r = await belfry(['jobs', 'get', cronJobId, '--json'], {
      env: { BELFRY_URL: server.url, BELFRY_TOKEN: apiKey },
    });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).id).toBe(cronJobId);
  });

  it('admin create-tenant --json on the database gives a working key of a separate tenant', async () => {
    const r = await belfry(['admin', 'create-tenant', '--name', 'acme', '--json'], {
      env: { DATABASE_URL: server.db.url, BELFRY_ENCRYPTION_KEY: ENCRYPTION_KEY_MATERIAL },
    });
    expect(r.code, r.stderr).toBe(0);
    const created = JSON.parse(r.stdout) as { tenantId: string; apiKey: string };
    expect(Object.keys(created)).toEqual(['tenantId', 'apiKey']);
    expect(created.tenantId).toMatch(/^ten_/);
    const { rows } = await server.db.pool.query('SELECT name FROM tenants WHERE id = $1', [created.tenantId]);
    expect(rows).toEqual([{ name: 'acme' }]);

    const asAcme = { env: { BELFRY_URL: server.url, BELFRY_TOKEN: created.apiKey } };
    const list = await belfry(['jobs', 'list', '--json'], asAcme);
    expect(list.code, list.stderr).toBe(0);
    expect(JSON.parse(list.stdout)).toEqual({ data: [], nextCursor: null });
    // another tenant's job is simply not there
    const other = await belfry(['jobs', 'get', cronJobId], asAcme);
    expect(other.code).toBe(1);
    expect(other.stderr).toMatch(/not found/);
  });

  it('admin create-tenant refuses a blank name with the field, exit 1', async () => {
    const r = await belfry(['admin', 'create-tenant', '--name', '  '], {
      env: { DATABASE_URL: server.db.url, BELFRY_ENCRYPTION_KEY: ENCRYPTION_KEY_MATERIAL },
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/name: must be 1 to 200 characters/);
  });

  it('admin set-operator turns the operator view on and off for a user, and names a missing one', async () => {
    const env = { env: { DATABASE_URL: server.db.url, BELFRY_ENCRYPTION_KEY: ENCRYPTION_KEY_MATERIAL } };
    const { rows } = await server.db.pool.query<{ email: string }>(
      `INSERT INTO users (id, email, password_hash) VALUES ('usr_operator_cli', 'ops@example.com', 'x') RETURNING email`,
    );
    expect(rows).toHaveLength(1);
    const on = await belfry(['admin', 'set-operator', '--email', 'OPS@example.com', '--json'], env);
    expect(on.code, on.stderr).toBe(0);
    expect(JSON.parse(on.stdout)).toEqual({ userId: 'usr_operator_cli', email: 'ops@example.com', operator: true });
    const off = await belfry(['admin', 'set-operator', '--email', 'ops@example.com', '--off'], env);
    expect(off.code, off.stderr).toBe(0);
    expect(off.stdout).toMatch(/no longer an operator/);
    const flag = await server.db.pool.query('SELECT is_operator FROM users WHERE id = $1', ['usr_operator_cli']);
    expect(flag.rows).toEqual([{ is_operator: false }]);
    const missing = await belfry(['admin', 'set-operator', '--email', 'nobody@example.com'], env);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/no user with e-mail nobody@example.com/);
  });

  it('admin set-limits changes the limits that belfry limits then shows', async () => {
    const env = { env: { DATABASE_URL: server.db.url, BELFRY_ENCRYPTION_KEY: ENCRYPTION_KEY_MATERIAL } };
    const t = await server.createTenant('limited');
    const set = await belfry(
      ['admin', 'set-limits', '--tenant', t.tenantId, '--max-jobs', '7', '--max-runs-per-minute', '120', '--json'],
      env,
    );
    expect(set.code, set.stderr).toBe(0);
    expect(JSON.parse(set.stdout)).toMatchObject({ tenantId: t.tenantId, maxJobs: 7, maxRunsPerMinute: 120 });
    const shown = await belfry(['limits', '--json'], { env: { BELFRY_URL: server.url, BELFRY_TOKEN: t.apiKey } });
    expect(shown.code, shown.stderr).toBe(0);
    expect(JSON.parse(shown.stdout)).toMatchObject({ maxJobs: 7, maxRunsPerMinute: 120, usage: { jobs: 0 } });
    const human = await belfry(['limits'], { env: { BELFRY_URL: server.url, BELFRY_TOKEN: t.apiKey } });
    expect(human.stdout).toMatch(/jobs\s+0 of 7/);

    const bad = await belfry(['admin', 'set-limits', '--tenant', t.tenantId, '--max-jobs', '-1'], env);
    expect(bad.code).toBe(2);
    const none = await belfry(['admin', 'set-limits', '--tenant', t.tenantId], env);
    expect(none.code).toBe(2);
    const unknown = await belfry(['admin', 'set-limits', '--tenant', 'ten_nope', '--max-jobs', '1'], env);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/Tenant not found/);
  });
});

describe('jobs create --from-file (NDJSON, batches of 1,000)', () => {
  let env: Record<string, string>;
  let tenantId: string;
  const line = (name: string, extra: Record<string, unknown> = {}) =>
    JSON.stringify({
      name,
      schedule: { type: 'interval', everySeconds: 3600 },
      target: { type: 'http', url: 'https://example.com/bulk' },
      ...extra,
    });
  const jobCount = async () =>
    (await server.db.pool.query('SELECT count(*)::int AS n FROM jobs WHERE tenant_id = $1', [tenantId])).rows[0].n;

  beforeAll(async () => {
    const tenant = await server.createTenant('cli bulk');
    tenantId = tenant.tenantId;
    env = { BELFRY_URL: server.url, BELFRY_TOKEN: tenant.apiKey };
  });

  it('creates every line in batches of 1,000, skipping blank lines', async () => {
    const file = join(home, 'bulk.ndjson');
    const lines = Array.from({ length: 1001 }, (_, i) => line(`bulk-${i}`));
    lines.splice(500, 0, '', '   ');
    writeFileSync(file, `${lines.join('\n')}\n`);
    const r = await belfry(['jobs', 'create', '--from-file', file], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`Created 1001 jobs from ${file}.\n`);
    expect(r.stderr).toBe('created 1000 of 1001 jobs\ncreated 1001 of 1001 jobs\n');
    expect(await jobCount()).toBe(1001);
  });

  it('--json prints the created jobs; "-" reads stdin', async () => {
    const r = await belfry(['jobs', 'create', '--from-file', '-', '--json'], {
      env,
      input: `${line('stdin-a')}\n${line('stdin-b', { priority: 'high' })}`,
    });
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { data: { id: string; name: string; priority: string }[] };
    expect(out.data.map((j) => [j.name, j.priority])).toEqual([
      ['stdin-a', 'normal'],
      ['stdin-b', 'high'],
    ]);
  });

  it('a line that is not JSON stops before anything is sent, naming the line, exit 1', async () => {
    const before = await jobCount();
    const file = join(home, 'broken.ndjson');
    writeFileSync(file, [line('ok-1'), line('ok-2'), '{"name": "broken",', line('ok-4')].join('\n'));
    const r = await belfry(['jobs', 'create', '--from-file', file], { env });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(new RegExp(`^error: ${file} line 3: not valid JSON`));
    const array = join(home, 'array.ndjson');
    writeFileSync(array, `${line('ok')}\n[1, 2]\n`);
    const r2 = await belfry(['jobs', 'create', '--from-file', array], { env });
    expect(r2.code).toBe(1);
    expect(r2.stderr).toMatch(/line 2: must be a JSON object/);
    expect(await jobCount()).toBe(before);
  });

  it('a refused batch names the line of each bad job; earlier batches stay created, exit 1', async () => {
    const before = await jobCount();
    const file = join(home, 'invalid.ndjson');
    const lines = Array.from({ length: 1010 }, (_, i) => line(`second-${i}`));
    lines[1004] = line('bad-cron', { schedule: { type: 'cron', expression: '61 * * * *' } });
    writeFileSync(file, lines.join('\n'));
    const r = await belfry(['jobs', 'create', '--from-file', file], { env });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`error: ${file}: the batch of lines 1001-1010 was refused; nothing in it was created:`);
    expect(r.stderr).toMatch(/\n {2}line 1005: schedule\.expression: .+\n/);
    expect(r.stderr).toContain('1000 jobs from lines before 1001 were created');
    expect(await jobCount()).toBe(before + 1000);
  });

  it('single-job flags do not mix with --from-file, exit 2', async () => {
    const r = await belfry(['jobs', 'create', '--from-file', 'x.ndjson', '--name', 'n'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--name cannot be combined with it/);
    const missing = await belfry(['jobs', 'create', '--from-file', join(home, 'missing.ndjson')], { env });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/--from-file .*missing\.ndjson: no such file/);
  });
});

/** A port nothing listens on: bind one, then free it. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
  const address = probe.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  await new Promise<void>((r) => probe.close(() => r()));
  return port;
}
