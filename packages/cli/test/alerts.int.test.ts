// `belfry alerts channels ...`, `belfry alerts policy ...` and `belfry incidents list`: the real
// binary in a child process against the real REST handler, credentials from BELFRY_URL/BELFRY_TOKEN.
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { newId } from '@belfry/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { childEnv, testEnv } from '../../../test/env';
import { type Sink, startSink } from '../../../test/fixtures';
import { startTestServer, type TestServer } from '../../../test/rest-server';

const root = resolve(import.meta.dirname, '../../..');
let server: TestServer;
let tenantId: string;
let cliEnv: Record<string, string>;
let receiver: Sink;

function belfry(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const home = mkdtempSync(join(tmpdir(), 'belfry-cli-alerts-'));
  const env = childEnv({
    HOME: home,
    XDG_CONFIG_HOME: join(home, 'config'),
    ...cliEnv,
    PATH: `${join(root, 'node_modules/.bin')}${delimiter}${testEnv.PATH}`,
  });
  return new Promise((done, fail) => {
    const child = spawn(join(root, 'node_modules/.bin/belfry'), args, { cwd: root, env });
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
  });
}

beforeAll(async () => {
  [server, receiver] = await Promise.all([startTestServer(), startSink()]);
  const created = await server.createTenant('cli alerts');
  tenantId = created.tenantId;
  cliEnv = { BELFRY_URL: server.url, BELFRY_TOKEN: created.apiKey };
});
afterAll(async () => {
  await receiver?.close();
  await server?.close();
});

describe('belfry alerts and incidents', () => {
  it('creates, lists, tests and deletes channels; secrets stay masked', async () => {
    const created = await belfry([
      'alerts',
      'channels',
      'create',
      'webhook',
      '--url',
      `${receiver.url}?token=s3cret`,
      '--json',
    ]);
    expect(created.code, created.stderr).toBe(0);
    const channel = JSON.parse(created.stdout);
    expect(channel).toMatchObject({ type: 'webhook', url: `${receiver.url}?***` });

    const email = await belfry(['alerts', 'channels', 'create', 'email', '--to', 'a@example.com,b@example.com']);
    expect(email.code, email.stderr).toBe(0);
    expect(email.stdout).toMatch(/^Created email channel ach_/);

    const list = await belfry(['alerts', 'channels', 'list']);
    expect(list.stdout).toContain(channel.id);
    expect(list.stdout).toContain('a@example.com, b@example.com');
    expect(list.stdout).not.toContain('s3cret');
    // One channel a page: the rest is offered by cursor; --all follows it to the end.
    const paged = await belfry(['alerts', 'channels', 'list', '--limit', '1', '--json']);
    const page = JSON.parse(paged.stdout);
    expect(page.data.map((c: { id: string }) => c.id)).toEqual([channel.id]);
    expect(page.nextCursor).toEqual(expect.any(String));
    const rest = JSON.parse(
      (await belfry(['alerts', 'channels', 'list', '--cursor', page.nextCursor, '--json'])).stdout,
    );
    expect(rest.data).toHaveLength(1);
    expect(rest.nextCursor).toBeNull();
    const all = JSON.parse((await belfry(['alerts', 'channels', 'list', '--all', '--limit', '1', '--json'])).stdout);
    expect(all.data).toHaveLength(2);
    const badLimit = await belfry(['alerts', 'channels', 'list', '--limit', '0']);
    expect(badLimit.code).toBe(2);
    const badCursor = await belfry(['alerts', 'channels', 'list', '--cursor', 'nope']);
    expect(badCursor.code).toBe(1);
    expect(badCursor.stderr).toContain('cursor');

    const tested = await belfry(['alerts', 'channels', 'test', channel.id]);
    expect(tested.code, tested.stderr).toBe(0);
    expect(tested.stdout).toBe(`Delivered a test notification to ${channel.id}.\n`);
    expect(receiver.deliveries.at(-1)?.url).toBe('/hook?token=s3cret');

    const missing = await belfry(['alerts', 'channels', 'create', 'slack']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('a slack channel needs --url');

    expect((await belfry(['alerts', 'channels', 'delete', channel.id])).code).toBe(0);
    const gone = await belfry(['alerts', 'channels', 'get', channel.id]);
    expect(gone.code).toBe(1);
  });

  it('sets and shows the policy', async () => {
    const set = await belfry([
      'alerts',
      'policy',
      'set',
      '--after-failures',
      '3',
      '--late-after',
      '120',
      '--no-notify-recovery',
    ]);
    expect(set.code, set.stderr).toBe(0);
    const got = JSON.parse((await belfry(['alerts', 'policy', 'get', '--json'])).stdout);
    expect(got).toEqual({
      channels: null,
      onDead: true,
      afterConsecutiveFailures: 3,
      lateAfterSeconds: 120,
      notifyRecovery: false,
    });
    const bad = await belfry(['alerts', 'policy', 'set', '--late-after', '2']);
    expect(bad.code).toBe(2);
  });

  it('lists incidents, open or resolved', async () => {
    const id = newId('inc');
    await server.db.pool.query(`INSERT INTO incidents (id, tenant_id, job_id, kind) VALUES ($1, $2, $3, 'dead')`, [
      id,
      tenantId,
      newId('job'),
    ]);
    const open = await belfry(['incidents', 'list', '--status', 'open']);
    expect(open.code, open.stderr).toBe(0);
    expect(open.stdout).toContain(id);
    expect(open.stdout).toContain('dead');
    const resolved = JSON.parse((await belfry(['incidents', 'list', '--status', 'resolved', '--json'])).stdout);
    expect(resolved).toEqual({ data: [], nextCursor: null });
  });
});
