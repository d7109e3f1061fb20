// Broker targets through a real engine node: jobs whose target is RabbitMQ (amqp) or NATS
// JetStream (nats), delivered, retried per their retry policy and dead-lettered as the
// contract says — checked on the broker side (one message per attempt that reached it, with
// the run id as message id) and in the run history.
import { randomBytes } from 'node:crypto';
import { type Channel, type ChannelModel, connect as amqpConnect, type Message } from 'amqplib';
import { connect as natsConnect, type JetStreamManager, type NatsConnection, StorageType } from 'nats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tcpProxy } from '../../../packages/handlers/src/testing';
import { createTestDatabase, type TestDatabase } from '../../../test/db';
import { type EngineNode, startEngineNode } from '../../../test/engine-nodes';
import {
  insertJob,
  insertTenant,
  type JobOptions,
  TEST_ENCRYPTION_KEY_MATERIAL,
  waitForRows,
} from '../../../test/fixtures';

const suffix = () => randomBytes(6).toString('hex');
const RABBIT = 'amqp://guest:guest@127.0.0.1:5672';
const NATS = 'nats://127.0.0.1:4222';

describe('engine: broker targets', () => {
  let db: TestDatabase;
  let node: EngineNode;
  let tenantId: string;
  let admin: ChannelModel;
  let channel: Channel;
  let nc: NatsConnection;
  let jsm: JetStreamManager;
  const exchange = `belfry-engine-${suffix()}`;
  const queue = `belfry-engine-${suffix()}`;
  const stream = `BELFRY_ENGINE_${suffix()}`;
  const subjects = `belfry-engine.${suffix()}`;

  beforeAll(async () => {
    db = await createTestDatabase();
    admin = await amqpConnect(RABBIT);
    channel = await admin.createChannel();
    await channel.assertExchange(exchange, 'direct', { durable: false });
    await channel.assertQueue(queue, { durable: false, exclusive: true });
    await channel.bindQueue(queue, exchange, 'reports');
    nc = await natsConnect({ servers: NATS });
    jsm = await nc.jetstreamManager();
    await jsm.streams.add({ name: stream, subjects: [`${subjects}.>`], storage: StorageType.Memory });
    node = await startEngineNode({
      databaseUrl: db.url,
      nodeId: `brokers-${suffix()}`,
      env: { BELFRY_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY_MATERIAL },
    });
    tenantId = (await insertTenant(db.pool)).id;
  });
  afterAll(async () => {
    await node?.stop();
    await channel?.deleteExchange(exchange).catch(() => {});
    await admin?.close();
    await jsm?.streams.delete(stream).catch(() => {});
    await nc?.close();
    await db?.destroy();
  });

  const job = (target: Record<string, unknown>, options: Partial<JobOptions> = {}) =>
    insertJob(db.pool, tenantId, {
      schedule: { type: 'once', runAt: new Date(Date.now() + 300) },
      url: '',
      target,
      partitions: db.partitions,
      retry: { maxAttempts: 3, initialDelaySeconds: 0, maxDelaySeconds: 1 },
      ...options,
    }).then((j) => j.id);
  const settled = (jobId: string, status: string) =>
    waitForRows<{ id: string; status: string; attempt: number; last_error: string | null }>(
      db.pool,
      'SELECT id, status, attempt, last_error FROM runs WHERE job_id = $1',
      [jobId],
      (rows) => rows[0]?.status === status,
    );
  const attemptsOf = async (jobId: string) =>
    (
      await db.pool.query<{ attempt: number; status: string; error: string | null; response_snippet: string | null }>(
        'SELECT attempt, status, error, response_snippet FROM run_attempt_history WHERE job_id = $1 ORDER BY attempt',
        [jobId],
      )
    ).rows;
  const waitForAttempts = (jobId: string, count: number) =>
    waitForRows(
      db.pool,
      'SELECT attempt FROM run_attempt_history WHERE job_id = $1 AND finished_at IS NOT NULL',
      [jobId],
      (rows) => rows.length >= count,
    );
  const drain = async (): Promise<Message[]> => {
    const out: Message[] = [];
    for (;;) {
      const m = await channel.get(queue, { noAck: true });
      if (m === false) return out;
      out.push(m);
    }
  };
  const amqp = (extra: Record<string, unknown> = {}) => ({
    type: 'amqp',
    url: RABBIT,
    exchange,
    routingKey: 'reports',
    persistent: true,
    headers: {},
    ...extra,
  });

  it('amqp: one confirmed message, the run id as message id; the attempt records the confirmation', async () => {
    const id = await job(amqp());
    const [run] = await settled(id, 'succeeded');
    const messages = await drain();
    expect(messages).toHaveLength(1);
    expect(messages[0]!.properties.messageId).toBe(run!.id);
    expect(String(messages[0]!.properties.headers?.['belfry-job-id'])).toBe(id);
    const [attempt] = await attemptsOf(id);
    expect(attempt).toMatchObject({ attempt: 1, status: 'succeeded', error: null });
    expect(attempt!.response_snippet).toMatch(/^confirmed by amqp:\/\/127\.0\.0\.1:5672/);
  });

  it('amqp: unroutable is retried per the policy, then dead, and nothing is delivered', async () => {
    const id = await job(amqp({ routingKey: 'nobody' }), {
      retry: { maxAttempts: 2, initialDelaySeconds: 0, maxDelaySeconds: 1 },
    });
    const [run] = await settled(id, 'dead');
    expect(run).toMatchObject({ attempt: 2 });
    expect(run!.last_error).toMatch(/^unroutable/);
    expect((await attemptsOf(id)).map((a) => a.status)).toEqual(['failed', 'failed']);
    expect(await drain()).toEqual([]);
  });

  it('amqp: a wrong password is dead at once, whatever maxAttempts says', async () => {
    const id = await job(amqp({ url: 'amqp://guest:wrong@127.0.0.1:5672' }), {
      retry: { maxAttempts: 5, initialDelaySeconds: 0, maxDelaySeconds: 1 },
    });
    const [run] = await settled(id, 'dead');
    expect(run).toMatchObject({ attempt: 1 });
    expect(run!.last_error).toMatch(/authentication refused/);
    expect(run!.last_error).not.toContain('wrong');
  });

  it('amqp: a broker that is down is retried; when it comes up the run succeeds with one message', async () => {
    const proxy = await tcpProxy(5672);
    try {
      const id = await job(amqp({ url: `amqp://guest:guest@127.0.0.1:${proxy.port}` }), {
        retry: { maxAttempts: 10, initialDelaySeconds: 1, maxDelaySeconds: 1 },
      });
      await waitForAttempts(id, 1);
      await proxy.start();
      const [run] = await settled(id, 'succeeded');
      expect(run!.attempt).toBeGreaterThanOrEqual(2);
      const attempts = await attemptsOf(id);
      expect(attempts[0]).toMatchObject({ attempt: 1, status: 'failed' });
      expect(attempts[0]!.error).toMatch(/connection refused/);
      const messages = await drain();
      expect(messages.map((m) => [m.properties.messageId, String(m.properties.headers?.['belfry-attempt'])])).toEqual([
        [run!.id, String(run!.attempt)],
      ]);
    } finally {
      await proxy.stop();
    }
  });

  it('nats: one acknowledged message with Nats-Msg-Id = the run id', async () => {
    const before = (await jsm.streams.info(stream)).state.last_seq;
    const id = await job({ type: 'nats', url: NATS, subject: `${subjects}.daily`, headers: {} });
    const [run] = await settled(id, 'succeeded');
    const info = await jsm.streams.info(stream);
    expect(info.state.last_seq).toBe(before + 1);
    const m = await jsm.streams.getMessage(stream, { seq: before + 1 });
    expect(m.header.get('Nats-Msg-Id')).toBe(run!.id);
    expect(m.header.get('belfry-attempt')).toBe('1');
    expect((await attemptsOf(id))[0]!.response_snippet).toMatch(
      new RegExp(`stream "${stream}", sequence ${before + 1}`),
    );
  });

  it('nats: a subject no stream captures is retried, then dead', async () => {
    const id = await job(
      { type: 'nats', url: NATS, subject: `nobody-${suffix()}.x`, headers: {} },
      { retry: { maxAttempts: 2, initialDelaySeconds: 0, maxDelaySeconds: 1 } },
    );
    const [run] = await settled(id, 'dead');
    expect(run).toMatchObject({ attempt: 2 });
    expect(run!.last_error).toMatch(/no JetStream stream captures subject/);
  });
});
