// `belfry worker` end to end: the real binary in a child process, claiming from the real REST
// API over a real database, running a real command (sh -c) per run: payload on stdin and
// BELFRY_* variables, exit 0 = succeeded, another exit = failed with the output's tail, and
// Ctrl-C (SIGINT to the worker's whole process group, as a terminal sends it) drains.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { childEnv, testEnv } from '../../../test/env';
import { startTestServer, type TestServer } from '../../../test/rest-server';

const root = resolve(import.meta.dirname, '../../..');
const bin = join(root, 'node_modules/.bin/belfry');

// biome-ignore lint/suspicious/noExplicitAny: response bodies are asserted field by field
type Body = any;

interface Worker {
  child: ChildProcess;
  stderr: () => string;
  stdout: () => string;
  /** resolves with the first stderr line matching */
  waitFor(pattern: RegExp): Promise<string>;
  exited: Promise<number | null>;
}

let server: TestServer;
let apiKey: string;
let work: string;
const workers: Worker[] = [];

function startWorker(args: string[]): Worker {
  const env = childEnv({
    HOME: work,
    BELFRY_URL: server.url,
    BELFRY_TOKEN: apiKey,
    OUT: work,
    PATH: `${join(root, 'node_modules/.bin')}${delimiter}${testEnv.PATH}`,
  });
  // Its own process group, like a shell job: SIGINT to the group is what Ctrl-C sends.
  const child = spawn(bin, ['worker', ...args], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let stdout = '';
  let stderr = '';
  const waiters: { pattern: RegExp; resolve: (line: string) => void }[] = [];
  child.stdout?.on('data', (c: Buffer) => {
    stdout += c.toString();
  });
  child.stderr?.on('data', (c: Buffer) => {
    stderr += c.toString();
    for (const w of [...waiters]) {
      const line = stderr.split('\n').find((l) => w.pattern.test(l));
      if (line) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(line);
      }
    }
  });
  const exited = new Promise<number | null>((done) => child.on('close', (code) => done(code)));
  const worker: Worker = {
    child,
    stderr: () => stderr,
    stdout: () => stdout,
    waitFor: (pattern) =>
      new Promise((resolve, reject) => {
        const line = stderr.split('\n').find((l) => pattern.test(l));
        if (line) return resolve(line);
        waiters.push({ pattern, resolve });
        void exited.then(() => reject(new Error(`worker exited before ${pattern}:\n${stderr}`)));
      }),
    exited,
  };
  workers.push(worker);
  return worker;
}

async function api(method: string, path: string, body?: unknown): Promise<Body> {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${apiKey}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await res.json();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

async function pullJob(
  queue: string,
  payload: unknown,
  retry = { maxAttempts: 3, initialDelaySeconds: 60, maxDelaySeconds: 60 },
) {
  return api('POST', '/api/v1/jobs', {
    name: `worker-${queue}`,
    schedule: { type: 'cron', expression: '0 0 1 1 *' },
    target: { type: 'pull', queue },
    payload,
    retry,
  });
}

/** The run once the worker has reported it (the worker logs each report). */
async function reported(worker: Worker, runId: string): Promise<Body> {
  await worker.waitFor(new RegExp(`(succeeded|failed).* ${runId}: run is`));
  return api('GET', `/api/v1/runs/${runId}`);
}

beforeAll(async () => {
  server = await startTestServer();
  apiKey = (await server.createTenant('worker e2e')).apiKey;
  work = mkdtempSync(join(tmpdir(), 'belfry-worker-e2e-'));
});
afterEach(async () => {
  for (const w of workers.splice(0)) {
    if (w.child.exitCode === null && w.child.pid) process.kill(-w.child.pid, 'SIGKILL');
    await w.exited;
  }
});
afterAll(() => server?.close());

describe('belfry worker', () => {
  it('runs the command per run with the payload on stdin and BELFRY_* set; exit 0 = succeeded', async () => {
    const job = await pullJob('ok', { report: 'daily', n: 7 });
    const run = await api('POST', `/api/v1/jobs/${job.id}/trigger`);
    const worker = startWorker([
      '--queue',
      'ok',
      '--name',
      'e2e-box',
      '--',
      'sh',
      '-c',
      'cat > "$OUT/$BELFRY_RUN_ID.stdin"; env | grep ^BELFRY_ | sort > "$OUT/$BELFRY_RUN_ID.env"; echo "made report $BELFRY_ATTEMPT"',
    ]);
    const done = await reported(worker, run.id);
    expect(done).toMatchObject({ id: run.id, status: 'succeeded', attempt: 1 });
    expect(done.attempts[0]).toMatchObject({
      workerId: 'e2e-box',
      status: 'succeeded',
      responseSnippet: 'made report 1\n',
    });
    expect(JSON.parse(readFileSync(join(work, `${run.id}.stdin`), 'utf8'))).toEqual({ report: 'daily', n: 7 });
    const env = Object.fromEntries(
      readFileSync(join(work, `${run.id}.env`), 'utf8')
        .trim()
        .split('\n')
        .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
    );
    expect(env).toMatchObject({
      BELFRY_RUN_ID: run.id,
      BELFRY_JOB_ID: job.id,
      BELFRY_SCHEDULED_TIME: run.scheduledTime,
      BELFRY_ATTEMPT: '1',
      BELFRY_QUEUE: 'ok',
    });
    expect(JSON.parse(env.BELFRY_PAYLOAD as string)).toEqual({ report: 'daily', n: 7 });
    expect(worker.stdout()).toContain('made report 1');
  });

  it('fails the run with the exit code and the last 4 KiB of output; it is retried', async () => {
    const job = await pullJob('failing', null);
    const run = await api('POST', `/api/v1/jobs/${job.id}/trigger`);
    const worker = startWorker([
      '--queue',
      'failing',
      '--',
      'sh',
      '-c',
      'i=0; while [ $i -lt 300 ]; do echo "noise line $i"; i=$((i+1)); done; echo "the real problem" >&2; exit 3',
    ]);
    const done = await reported(worker, run.id);
    expect(done).toMatchObject({ status: 'failed', attempt: 1 });
    const [attempt] = done.attempts;
    expect(attempt.error).toBe('exit code 3');
    expect(Buffer.byteLength(attempt.responseSnippet)).toBeLessThanOrEqual(4096);
    expect(Buffer.byteLength(attempt.responseSnippet)).toBeGreaterThan(3000);
    expect(attempt.responseSnippet.endsWith('noise line 299\nthe real problem\n')).toBe(true);
    expect(attempt.responseSnippet).not.toContain('noise line 0\n');
  });

  it('drains on Ctrl-C: the running command finishes and is reported, nothing more is claimed', async () => {
    const job = await pullJob('drain', { slow: true });
    const first = await api('POST', `/api/v1/jobs/${job.id}/trigger`);
    // The command waits for a file the test creates after Ctrl-C: it is still running then.
    const gate = join(work, 'drain-gate');
    const worker = startWorker([
      '--queue',
      'drain',
      '--',
      'sh',
      '-c',
      `while [ ! -e "${gate}" ]; do sleep 0.1; done; echo "finished after the interrupt"`,
    ]);
    await worker.waitFor(new RegExp(`started ${first.id}`));
    process.kill(-(worker.child.pid as number), 'SIGINT');
    await worker.waitFor(/draining/);
    const second = await api('POST', `/api/v1/jobs/${job.id}/trigger`);
    (await import('node:fs')).writeFileSync(gate, '');
    expect(await worker.exited).toBe(0);
    const done = await api('GET', `/api/v1/runs/${first.id}`);
    expect(done, `${JSON.stringify(done.attempts)}\n${worker.stderr()}`).toMatchObject({ status: 'succeeded' });
    expect(done.attempts[0].responseSnippet).toBe('finished after the interrupt\n');
    expect((await api('GET', `/api/v1/runs/${second.id}`)).status).toBe('pending');
    expect(worker.stderr()).toMatch(/stopped: 1 succeeded, 0 failed/);
  });

  it('refuses a bad queue name and a missing command as usage errors', async () => {
    const bad = startWorker(['--queue', 'no spaces', '--', 'true']);
    expect(await bad.exited).toBe(2);
    expect(bad.stderr()).toMatch(/--queue must be/);
    const none = startWorker(['--queue', 'q']);
    expect(await none.exited).toBe(2);
  });
});
