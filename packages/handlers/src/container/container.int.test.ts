// The container handler against the real Docker Engine on this machine, with a locally built
// busybox image and no network: success, exit codes, output tail, environment, timeouts,
// limits, the allow-list, pull policies, aborts and adopting a container left behind.
import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { containersOfRun, ensureTestImage, TEST_IMAGE, testDocker } from '../../../../test/docker';
import type { HandlerContext } from '../types';
import { ContainerHandler } from './container';
import { containerName } from './docker';
import { ImageAllowList } from './images';
import { ContainerTargetInput, type StoredContainerTarget } from './schema';

const docker = testDocker();
const handler = new ContainerHandler({
  docker,
  images: ImageAllowList.parse(`belfry-test/*,127.0.0.1:1/*`),
  killGraceMs: 500,
});

function target(fields: Partial<StoredContainerTarget> & { command?: string[] }): StoredContainerTarget {
  return ContainerTargetInput.parse({ type: 'container', image: TEST_IMAGE, ...fields });
}

function context(overrides: Partial<HandlerContext> = {}): HandlerContext {
  return {
    runId: `run_test${randomBytes(6).toString('hex')}`,
    jobId: 'job_test',
    tenantId: 'ten_test',
    attempt: 1,
    scheduledTime: new Date('2026-01-02T03:04:05.000Z'),
    timeoutMs: 30_000,
    signal: new AbortController().signal,
    signingSecrets: [],
    now: () => new Date(),
    ...overrides,
  };
}

const sh = (script: string) => ['sh', '-c', script];

beforeAll(async () => {
  await ensureTestImage();
}, 120_000);

describe('ContainerHandler', () => {
  it('succeeds on exit 0 with the output tail, and removes the container', async () => {
    const ctx = context();
    const out = await handler.execute(target({ command: sh('echo hello; echo oops >&2') }), null, ctx);
    expect(out).toMatchObject({ ok: true, exitCode: 0 });
    expect(out.responseSnippet).toContain('hello\n');
    expect(out.responseSnippet).toContain('oops\n');
    expect(await containersOfRun(ctx.runId)).toEqual([]);
  });

  it('fails with the exit code on a non-zero exit (retryable)', async () => {
    const out = await handler.execute(target({ command: sh('echo bye; exit 3') }), null, context());
    expect(out).toMatchObject({ ok: false, failure: 'exit', exitCode: 3, error: 'exited with code 3' });
    expect(out.responseSnippet).toBe('bye\n');
  });

  it('passes the job env, the BELFRY_* variables and the payload', async () => {
    const ctx = context({ attempt: 2 });
    const out = await handler.execute(
      target({ command: sh('env | sort'), env: { REPORT: 'daily', API_TOKEN: 's3cr3t' } }),
      { a: 1, s: 'é' },
      ctx,
    );
    expect(out.ok).toBe(true);
    const lines = (out.responseSnippet ?? '').split('\n');
    expect(lines).toEqual(
      expect.arrayContaining([
        'REPORT=daily',
        'API_TOKEN=s3cr3t',
        `BELFRY_RUN_ID=${ctx.runId}`,
        'BELFRY_JOB_ID=job_test',
        'BELFRY_SCHEDULED_TIME=2026-01-02T03:04:05.000Z',
        'BELFRY_ATTEMPT=2',
        'BELFRY_PAYLOAD={"a":1,"s":"é"}',
      ]),
    );
  });

  it('keeps only the last 4 KiB of output', async () => {
    const out = await handler.execute(
      target({ command: sh('i=0; while [ $i -lt 300 ]; do echo "line $i of the output"; i=$((i+1)); done; echo END') }),
      null,
      context(),
    );
    expect(out.ok).toBe(true);
    expect(Buffer.byteLength(out.responseSnippet ?? '')).toBeLessThanOrEqual(4096);
    expect(Buffer.byteLength(out.responseSnippet ?? '')).toBeGreaterThan(4000);
    expect(out.responseSnippet?.endsWith('line 299 of the output\nEND\n')).toBe(true);
    expect(out.responseSnippet).not.toContain('line 0 of');
  });

  it('stops a container past its timeout with SIGTERM: "timed out"', async () => {
    const ctx = context({ timeoutMs: 1_000 });
    const out = await handler.execute(target({ command: sh('echo started; sleep 30') }), null, ctx);
    expect(out).toMatchObject({ ok: false, failure: 'timeout', error: 'timed out after 1 s' });
    expect(out.responseSnippet).toBe('started\n');
    expect(await containersOfRun(ctx.runId)).toEqual([]);
  });

  it('kills one that ignores SIGTERM after the grace period', async () => {
    const out = await handler.execute(
      target({ command: sh('trap "" TERM; echo stubborn; while true; do sleep 1; done') }),
      null,
      context({ timeoutMs: 1_000 }),
    );
    expect(out).toMatchObject({ ok: false, failure: 'timeout', exitCode: 137 });
  });

  it('runs locked down with the limits given', async () => {
    const abort = new AbortController();
    const ctx = context({ signal: abort.signal });
    const running = handler.execute(
      target({ command: sh('sleep 30'), memoryMb: 64, cpus: 0.5, user: '1000:1000', workingDir: '/tmp' }),
      null,
      ctx,
    );
    const name = containerName(ctx.runId, ctx.attempt);
    let info = await inspectWhenRunning(name);
    abort.abort();
    const out = await running;
    expect(out).toMatchObject({ ok: false, failure: 'connection' });
    info = info as NonNullable<typeof info>;
    expect(info.HostConfig).toMatchObject({
      Privileged: false,
      CapDrop: ['ALL'],
      SecurityOpt: ['no-new-privileges'],
      PidsLimit: 512,
      Memory: 64 * 1024 * 1024,
      NanoCpus: 500_000_000,
      NetworkMode: 'none',
      Init: true,
    });
    expect(info.Config).toMatchObject({ User: '1000:1000', WorkingDir: '/tmp' });
    expect(info.Config.Labels).toMatchObject({
      'belfry.run-id': ctx.runId,
      'belfry.attempt': '1',
      'belfry.tenant-id': 'ten_test',
    });
    expect(await containersOfRun(ctx.runId)).toEqual([]);
  });

  it('refuses an image outside the allow-list without touching Docker', async () => {
    const ctx = context();
    const out = await handler.execute(target({ image: 'busybox:latest' }), null, ctx);
    expect(out).toMatchObject({ ok: false, failure: 'refused' });
    expect(out.error).toMatch(/not allowed/);
    const none = new ContainerHandler({ docker, images: ImageAllowList.parse(undefined) });
    expect((await none.execute(target({}), null, ctx)).error).toMatch(/BELFRY_CONTAINER_IMAGES is not set/);
  });

  it('fails clearly when the image is missing under pullPolicy "never", or cannot be pulled', async () => {
    const never = await handler.execute(
      target({ image: 'belfry-test/absent:1', pullPolicy: 'never' }),
      null,
      context(),
    );
    expect(never).toMatchObject({ ok: false, failure: 'image' });
    expect(never.error).toBe(`image 'belfry-test/absent:1' is not on the Docker Engine and pullPolicy is "never"`);
    // A registry on loopback that is not there: the pull fails, nothing leaves the machine.
    const pull = await handler.execute(target({ image: '127.0.0.1:1/belfry/absent:1' }), null, context());
    expect(pull).toMatchObject({ ok: false, failure: 'image' });
    expect(pull.error).toMatch(/^could not pull image '127\.0\.0\.1:1\/belfry\/absent:1': /);
  });

  it('adopts the container a dead node left for the attempt instead of starting another', async () => {
    const ctx = context({ resumed: true, attempt: 3 });
    const name = containerName(ctx.runId, ctx.attempt);
    const left = await docker.createContainer({
      name,
      Image: TEST_IMAGE,
      Cmd: sh('sleep 1; echo from the first node; exit 4'),
      Labels: { 'belfry.run-id': ctx.runId, 'belfry.attempt': '3' },
      HostConfig: { NetworkMode: 'none' },
    });
    await left.start();
    const out = await handler.execute(target({ command: sh('echo second container') }), null, ctx);
    expect(out).toMatchObject({ ok: false, failure: 'exit', exitCode: 4, responseSnippet: 'from the first node\n' });
    expect(await containersOfRun(ctx.runId)).toEqual([]);
  });
});

async function inspectWhenRunning(name: string) {
  for (let i = 0; i < 200; i++) {
    try {
      const info = await docker.getContainer(name).inspect();
      if (info.State.Running) return info;
    } catch {}
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`container ${name} never ran`);
}
