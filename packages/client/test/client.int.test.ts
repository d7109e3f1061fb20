// The client against the real thing: the REST handler over a real database, an engine node
// (a child process, as in production) delivering to a webhook receiver on loopback, and
// verifyWebhook checking those deliveries with the secret the API hands out.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEngineNode, type EngineNode } from '../../../test/engine-nodes';
import { startSink, type Delivery, type Sink } from '../../../test/fixtures';
import { ENCRYPTION_KEY_MATERIAL, startTestServer, type TestServer } from '../../../test/rest-server';
import {
  ApiError,
  BelfryClient,
  type JobCreate,
  type Run,
  verifyWebhook,
  WebhookVerificationError,
} from '../src/index';

let server: TestServer;
let sink: Sink;
let node: EngineNode;

beforeAll(async () => {
  server = await startTestServer();
  sink = await startSink();
  node = await startEngineNode({
    databaseUrl: server.db.url,
    nodeId: 'client-int-1',
    env: { BELFRY_ENCRYPTION_KEY: ENCRYPTION_KEY_MATERIAL },
  });
});

afterAll(async () => {
  await node?.stop();
  await sink?.close();
  await server?.close();
});

async function clientFor(name: string): Promise<BelfryClient> {
  const { apiKey } = await server.createTenant(name);
  return new BelfryClient({ baseUrl: server.url, token: apiKey });
}

/** A job that never fires on its own (1 January at midnight), triggered by hand. */
function job(name: string, payload: unknown): JobCreate {
  return {
    name,
    schedule: { type: 'cron', expression: '0 0 1 1 *' },
    target: { url: sink.url, headers: { 'x-team': 'billing' } },
    payload,
  };
}

async function deliveryOf(run: Run): Promise<Delivery> {
  const all = await sink.waitFor((ds) => ds.some((d) => d.headers['webhook-id'] === run.id));
  return all.find((d) => d.headers['webhook-id'] === run.id) as Delivery;
}

async function waitForStatus(client: BelfryClient, runId: string, status: Run['status']): Promise<Run> {
  for (let i = 0; i < 200; i++) {
    const run = await client.getRun(runId);
    if (run.status === status) return run;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`run ${runId} did not become ${status}`);
}

describe('@belfry/client against a real server and engine', () => {
  it('creates, lists, triggers; the delivery verifies with the secret the API returns', async () => {
    const client = await clientFor('client-a');
    const created = await client.createJob(job('report', { report: 'daily', n: 1 }), { idempotencyKey: 'k-1' });
    expect(created).toMatchObject({ name: 'report', status: 'active', priority: 'normal' });
    expect((await client.createJob(job('report', { report: 'daily', n: 1 }), { idempotencyKey: 'k-1' })).id).toBe(
      created.id,
    );
    expect((await client.listJobs()).data.map((j) => j.id)).toEqual([created.id]);

    const run = await client.triggerJob(created.id);
    expect(run).toMatchObject({ jobId: created.id, trigger: 'manual' });
    const delivery = await deliveryOf(run);
    const { secret } = await client.getSigningSecret();
    const verified = verifyWebhook(delivery.body, delivery.headers, secret);
    expect(verified).toMatchObject({ id: run.id, jobId: created.id, attempt: 1, payload: { report: 'daily', n: 1 } });
    expect(verified.scheduledTime).toBe(run.scheduledTime);

    // the same bytes with another tenant's secret do not verify
    const other = await (await clientFor('client-other')).getSigningSecret();
    expect(() => verifyWebhook(delivery.body, delivery.headers, other.secret)).toThrow(WebhookVerificationError);

    const finished = await waitForStatus(client, run.id, 'succeeded');
    expect(finished.attempts).toHaveLength(1);
    expect(finished.attempts[0]).toMatchObject({ status: 'succeeded', httpStatus: 200 });
    expect((await client.listRuns(created.id)).data.map((r) => r.id)).toEqual([run.id]);
  });

  it('after a rotation, deliveries verify with the new secret and with the previous one', async () => {
    const client = await clientFor('client-b');
    const before = await client.getSigningSecret();
    const rotated = await client.rotateSigningSecret();
    expect(rotated.previous).toBe(before.secret);
    const created = await client.createJob(job('rotated', { step: 2 }));
    const delivery = await deliveryOf(await client.triggerJob(created.id));
    expect(String(delivery.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verifyWebhook(delivery.body, delivery.headers, rotated.secret).payload).toEqual({ step: 2 });
    expect(verifyWebhook(delivery.body, delivery.headers, before.secret).payload).toEqual({ step: 2 });
    expect(() => verifyWebhook(`${delivery.body} `, delivery.headers, rotated.secret)).toThrow(
      WebhookVerificationError,
    );
    const ended = await client.revokePreviousSigningSecret();
    expect(ended).toEqual({ secret: rotated.secret, previous: null, previousExpiresAt: null });
    expect(await client.getSigningSecret()).toEqual(ended);
  });

  it('pages through lists, changes and deletes jobs, and throws the API problem on errors', async () => {
    const client = await clientFor('client-c');
    for (const name of ['p1', 'p2', 'p3']) await client.createJob(job(name, null));
    const first = await client.listJobs({ limit: 2 });
    expect(first.data).toHaveLength(2);
    expect(first.nextCursor).toEqual(expect.any(String));
    const names: string[] = [];
    for await (const j of client.paginate((q) => client.listJobs({ ...q, limit: 2 }))) names.push(j.name);
    expect(names.sort()).toEqual(['p1', 'p2', 'p3']);
    for (const to of ['a@example.com', 'b@example.com', 'c@example.com']) {
      await client.createAlertChannel({ type: 'email', to: [to] });
    }
    const channels: string[] = [];
    for await (const c of client.paginate((q) => client.listAlertChannels({ ...q, limit: 2 }))) {
      channels.push(c.type === 'email' ? (c.to[0] ?? '') : c.type);
    }
    expect(channels).toEqual(['a@example.com', 'b@example.com', 'c@example.com']);
    expect(await client.listQueues({ limit: 1 })).toEqual({ data: [], nextCursor: null });

    const [target] = first.data;
    if (!target) throw new Error('no job');
    expect((await client.pauseJob(target.id)).status).toBe('paused');
    expect((await client.resumeJob(target.id)).status).toBe('active');
    expect((await client.updateJob(target.id, { priority: 'high' })).priority).toBe('high');
    await client.deleteJob(target.id);

    const missing = await client.getJob(target.id).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(ApiError);
    expect((missing as ApiError).status).toBe(404);

    const invalid = await client
      .createJob({ ...job('bad', null), schedule: { type: 'cron', expression: 'not cron' } })
      .catch((e: unknown) => e);
    expect((invalid as ApiError).status).toBe(400);
    expect((invalid as ApiError).problem.errors?.map((e) => e.path)).toContain('schedule.expression');

    const preview = await client.previewSchedule({ expression: '0 7 * * *', timezone: 'Europe/Berlin', count: 2 });
    expect(preview.times).toHaveLength(2);
    expect(await client.health()).toEqual({ status: 'ok' });
    const unauthenticated = new BelfryClient({ baseUrl: server.url, token: 'bfy_wrong' });
    expect(((await unauthenticated.listJobs().catch((e: unknown) => e)) as ApiError).status).toBe(401);
  });
});
