// Container targets end to end: real engine processes, real PostgreSQL, the real Docker Engine
// of this machine and a locally built busybox image (network none). Success, exit codes and
// retries, timeouts, cancel and pause of a running container, kill -9 of the node running one
// (adopted, never started twice, recorded once), the sweeper, and a node whose engine is away.
import { newId } from '@belfry/core';
import { CANCEL_CHANNEL } from '@belfry/db';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../test/db';
import { containersOfRun, ensureTestImage, TEST_IMAGE, testDocker } from '../../../test/docker';
import { type EngineNode, startEngineNode } from '../../../test/engine-nodes';
import {
  insertJob,
  insertTenant,
  TEST_ENCRYPTION_KEY_MATERIAL,
  waitForRows,
  waitForValue,
} from '../../../test/fixtures';

const ENV = {
  BELFRY_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY_MATERIAL,
  BELFRY_LEASE_SECONDS: '3',
  BELFRY_RUN_LEASE_SECONDS: '3',
  BELFRY_SHUTDOWN_GRACE_SECONDS: '1',
  BELFRY_CONTAINER_IMAGES: 'belfry-test/*',
};

interface RunRow {
  id: string;
  status: string;
  attempt: number;
  worker_id: string | null;
}
interface AttemptRow {
  attempt: number;
  status: string;
  exit_code: number | null;
  error: string | null;
  response_snippet: string | null;
  worker_id: string | null;
}

const sh = (script: string) => ['sh', '-c', script];
const docker = testDocker();

let db: TestDatabase;
let tenantId: string;
const nodes: EngineNode[] = [];

async function start(nodeId: string, env: Record<string, string> = {}) {
  const node = await startEngineNode({ databaseUrl: db.url, nodeId, env: { ...ENV, ...env } });
  nodes.push(node);
  await node.waitForLog((l) => l.msg === 'engine node started', 60_000);
  return node;
}

async function containerJob(
  target: Record<string, unknown>,
  o: { timeoutSeconds?: number; maxAttempts?: number } = {},
) {
  return insertJob(db.pool, tenantId, {
    schedule: { type: 'once', runAt: new Date(Date.now() + 500) },
    target: {
      type: 'container',
      image: TEST_IMAGE,
      env: {},
      memoryMb: 64,
      cpus: 0.5,
      network: 'none',
      pullPolicy: 'never',
      ...target,
    },
    payload: { report: 'daily' },
    timeoutSeconds: o.timeoutSeconds ?? 30,
    retry: { maxAttempts: o.maxAttempts ?? 1, initialDelaySeconds: 0, maxDelaySeconds: 1 },
    partitions: db.partitions,
  });
}

const runOf = (jobId: string, predicate: (r: RunRow) => boolean, timeoutMs = 60_000) =>
  waitForRows<RunRow>(
    db.pool,
    'SELECT id, status, attempt, worker_id FROM runs WHERE job_id = $1',
    [jobId],
    (rows) => rows.length === 1 && predicate(rows[0] as RunRow),
    timeoutMs,
  ).then((rows) => rows[0] as RunRow);

const attemptsOf = async (runId: string) =>
  (
    await db.pool.query<AttemptRow>(
      `SELECT attempt, status, exit_code, error, response_snippet, worker_id FROM run_attempt_history
        WHERE run_id = $1 ORDER BY attempt`,
      [runId],
    )
  ).rows;

const runningContainer = (runId: string) =>
  waitForValue(
    () => containersOfRun(runId),
    (cs) => cs.some((c) => c.State === 'running'),
    60_000,
  );

beforeAll(async () => {
  await ensureTestImage();
  db = await createTestDatabase();
  tenantId = (await insertTenant(db.pool)).id;
}, 180_000);

afterEach(async () => {
  for (const n of nodes.splice(0)) {
    n.signal('SIGCONT');
    await n.stop(20_000);
  }
});

afterAll(async () => {
  await db?.destroy();
});

describe('container runs', () => {
  it('run once per occurrence: success with env, payload and output; failures retried; timeouts; removed after', async () => {
    await start('ctr-a');
    const ok = await containerJob({
      command: sh('echo "payload=$BELFRY_PAYLOAD attempt=$BELFRY_ATTEMPT kind=$KIND"; echo warn >&2'),
      env: { KIND: 'daily' },
    });
    const failing = await containerJob({ command: sh('echo nope; exit 3') }, { maxAttempts: 2 });
    const slow = await containerJob({ command: sh('echo started; sleep 60') }, { timeoutSeconds: 1 });

    const okRun = await runOf(ok.id, (r) => r.status === 'succeeded');
    const okAttempts = await attemptsOf(okRun.id);
    expect(okAttempts).toEqual([expect.objectContaining({ status: 'succeeded', exit_code: 0, worker_id: 'ctr-a' })]);
    // stdout and stderr are two pipes: Docker interleaves them in the order it reads them,
    // which need not be the order the shell wrote them in.
    expect(okAttempts[0]?.response_snippet?.split('\n').sort()).toEqual([
      '',
      'payload={"report":"daily"} attempt=1 kind=daily',
      'warn',
    ]);

    const failRun = await runOf(failing.id, (r) => r.status === 'dead');
    const failAttempts = await attemptsOf(failRun.id);
    expect(failAttempts.map((a) => [a.attempt, a.status, a.exit_code, a.error, a.response_snippet])).toEqual([
      [1, 'failed', 3, 'exited with code 3', 'nope\n'],
      [2, 'failed', 3, 'exited with code 3', 'nope\n'],
    ]);

    const slowRun = await runOf(slow.id, (r) => r.status === 'dead');
    expect(await attemptsOf(slowRun.id)).toEqual([
      expect.objectContaining({ status: 'failed', error: 'timed out after 1 s', response_snippet: 'started\n' }),
    ]);
    for (const run of [okRun, failRun, slowRun]) expect(await containersOfRun(run.id)).toEqual([]);
  });

  it('cancel and pause stop a running container; the run ends cancelled', async () => {
    await start('ctr-b');
    const job = await containerJob({ command: sh('sleep 60') });
    const run = await runOf(job.id, (r) => r.status === 'running');
    await runningContainer(run.id);
    await db.pool.query(
      `UPDATE runs SET status = 'cancelled', finished_at = now(), lease_expires_at = NULL WHERE id = $1`,
      [run.id],
    );
    await db.pool.query('SELECT pg_notify($1, $2)', [CANCEL_CHANNEL, run.id]);
    await waitForValue(
      () => containersOfRun(run.id),
      (cs) => cs.length === 0,
      30_000,
    );
    const [attempt] = await waitForRows<AttemptRow>(
      db.pool,
      'SELECT status FROM run_attempt_history WHERE run_id = $1',
      [run.id],
      (rows) => rows[0]?.status === 'cancelled',
    );
    expect(attempt?.status).toBe('cancelled');
    expect((await runOf(job.id, () => true)).status).toBe('cancelled');
  });

  it('kill -9 of the node running a container: another node adopts it, no second container, one outcome', async () => {
    const since = Math.floor(Date.now() / 1000) - 1;
    await start('kill-a');
    await start('kill-b');
    const job = await containerJob({ command: sh('sleep 6; echo finished') });
    const run = await runOf(job.id, (r) => r.status === 'running');
    await runningContainer(run.id);
    const victim = nodes.find((n) => n.nodeId === run.worker_id) as EngineNode;
    const survivor = nodes.find((n) => n.nodeId !== run.worker_id) as EngineNode;
    victim.signal('SIGKILL');
    await victim.exited;

    const done = await runOf(job.id, (r) => r.status === 'succeeded');
    expect(done.attempt).toBe(1);
    expect(await attemptsOf(done.id)).toEqual([
      expect.objectContaining({
        attempt: 1,
        status: 'succeeded',
        exit_code: 0,
        response_snippet: 'finished\n',
        worker_id: survivor.nodeId,
      }),
    ]);
    expect(survivor.logs.some((l) => l.msg === 'adopted a container whose node stopped heartbeating')).toBe(true);
    // Docker's own record: exactly one container was ever created for this run.
    const events = await containerEvents(run.id, since);
    expect(events.filter((e) => e === 'create')).toHaveLength(1);
    expect(await containersOfRun(run.id)).toEqual([]);
  }, 150_000);

  it('sweeper: removes finished containers whose runs moved on and stops running ones whose runs are gone', async () => {
    const node = await start('sweep-a');
    const { rows } = await db.pool.query<{ value: string }>(
      `SELECT value FROM belfry_settings WHERE key = 'deployment_id'`,
    );
    const deployment = rows[0]?.value as string;
    const job = await containerJob({ command: sh('echo ok') });
    const run = await runOf(job.id, (r) => r.status === 'succeeded');
    // Left behind as if a node had died after recording but before removing, and one still
    // running whose run is gone: both are the sweeper's.
    const leftover = await docker.createContainer({
      name: `belfry-${run.id}-1`,
      Image: TEST_IMAGE,
      Cmd: sh('exit 0'),
      Labels: { 'belfry.run-id': run.id, 'belfry.attempt': '1', 'belfry.deployment': deployment },
      HostConfig: { NetworkMode: 'none' },
    });
    await leftover.start();
    const orphanRun = newId('run');
    const orphan = await docker.createContainer({
      name: `belfry-orphan-${Date.now()}`,
      Image: TEST_IMAGE,
      Cmd: sh('trap "exit 0" TERM; while true; do sleep 1; done'),
      Labels: { 'belfry.run-id': orphanRun, 'belfry.attempt': '1', 'belfry.deployment': deployment },
      HostConfig: { NetworkMode: 'none', Init: true },
    });
    await orphan.start();
    // Another deployment's container on the same engine is not this one's to touch.
    const foreign = await docker.createContainer({
      Image: TEST_IMAGE,
      Cmd: sh('sleep 60'),
      Labels: { 'belfry.run-id': run.id, 'belfry.attempt': '1', 'belfry.deployment': 'someone-else' },
      HostConfig: { NetworkMode: 'none', Init: true },
    });
    await foreign.start();
    try {
      await waitForValue(
        async () => [(await containersOfRun(run.id)).length, (await containersOfRun(orphanRun)).length],
        ([mine, orphans]) => mine === 1 && orphans === 0,
        30_000,
      );
      expect((await foreign.inspect()).State.Running).toBe(true);
      await waitForValue(
        async () => node.logs.some((l) => l.msg === 'stopped a container whose run moved on' && l.runId === orphanRun),
        (seen) => seen,
        10_000,
      );
    } finally {
      await foreign.remove({ force: true });
    }
  });

  it('a node whose Docker Engine does not answer takes no container runs, and says so', async () => {
    const away = await start('away-a', { BELFRY_DOCKER_HOST: 'unix:///nonexistent/docker.sock' });
    await away.waitForLog((l) => l.msg === 'engine node started');
    const job = await containerJob({ command: sh('echo never') });
    const stats = await waitForValue(
      async () =>
        (
          await db.pool.query<{ stats: { containers?: { available: boolean } } }>(
            `SELECT stats FROM engine_nodes WHERE id = 'away-a'`,
          )
        ).rows[0]?.stats,
      (s) => s?.containers !== undefined,
      15_000,
    );
    expect(stats?.containers).toMatchObject({ available: false });
    // Due and queued, but nobody can run it: it waits (and runs once a node with Docker comes).
    await new Promise((r) => setTimeout(r, 2_000));
    expect((await runOf(job.id, () => true)).status).toBe('pending');
    await start('docker-b');
    await runOf(job.id, (r) => r.status === 'succeeded');
  });
});

/** The Docker events of a run's containers since a time (seconds), up to now. */
async function containerEvents(runId: string, since: number): Promise<string[]> {
  const stream = await docker.getEvents({
    since,
    until: Math.ceil(Date.now() / 1000),
    filters: { type: ['container'], label: [`belfry.run-id=${runId}`] },
  });
  const chunks: Buffer[] = [];
  for await (const chunk of stream as AsyncIterable<Buffer>) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks)
    .toString('utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => (JSON.parse(line) as { Action?: string; status?: string }).Action ?? '');
}
