// The amqp handler against the real RabbitMQ on 127.0.0.1:5672 (guest/guest, vhost /): each
// test declares its own exchange and queue (random names, deleted afterwards), publishes
// through the handler and consumes what arrived — headers, signature, message id, exactly
// one message per attempt — and covers the broker's refusals: unroutable, missing exchange,
// wrong password, a broker down then up, one that never answers, and the SSRF guard.
import { randomBytes } from 'node:crypto';
import { type Channel, type ChannelModel, connect, type Message } from 'amqplib';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isRetryable } from '@belfry/core';
import { makeContext, SECRET, tcpProxy } from '../testing';
import { AmqpHandler, type AmqpTarget } from './amqp';

const BROKER = 'amqp://guest:guest@127.0.0.1:5672';
const suffix = () => randomBytes(6).toString('hex');

let admin: ChannelModel;
let channel: Channel;
let handler: AmqpHandler;
const exchange = `belfry-test-${suffix()}`;
const queue = `belfry-test-${suffix()}`;

beforeAll(async () => {
  admin = await connect(BROKER);
  channel = await admin.createChannel();
  await channel.assertExchange(exchange, 'direct', { durable: false, autoDelete: false });
  await channel.assertQueue(queue, { durable: false, exclusive: true });
  await channel.bindQueue(queue, exchange, 'reports');
  handler = new AmqpHandler({ allowPrivateTargets: true });
});
afterAll(async () => {
  await handler?.close();
  await channel?.deleteExchange(exchange).catch(() => {});
  await admin?.close();
});

const target = (extra: Partial<AmqpTarget> = {}): AmqpTarget => ({
  type: 'amqp',
  url: BROKER,
  exchange,
  routingKey: 'reports',
  persistent: true,
  headers: {},
  ...extra,
});

/** Every message waiting in the test queue (acknowledged, so each is seen once). */
async function drain(): Promise<Message[]> {
  const messages: Message[] = [];
  for (;;) {
    const m = await channel.get(queue, { noAck: true });
    if (m === false) return messages;
    messages.push(m);
  }
}

const stringHeaders = (m: Message) =>
  Object.fromEntries(Object.entries(m.properties.headers ?? {}).map(([k, v]) => [k, String(v)]));

describe('publishing', () => {
  it('publishes one persistent message, signed like a webhook, with the run id as message id', async () => {
    const payload = { report: 'daily', n: 1, emoji: '🔔' };
    const now = new Date();
    const outcome = await handler.execute(
      target({ headers: { 'X-Team': 'billing' } }),
      payload,
      makeContext({ attempt: 2, now: () => now }),
    );
    expect(outcome).toMatchObject({ ok: true, error: null, httpStatus: null });
    expect(outcome.responseSnippet).toBe(
      `confirmed by amqp://127.0.0.1:5672 (exchange ${JSON.stringify(exchange)}, routing key "reports")`,
    );

    const messages = await drain();
    expect(messages).toHaveLength(1);
    const [m] = messages;
    expect(m!.content.toString('utf8')).toBe(JSON.stringify(payload));
    expect(m!.properties).toMatchObject({
      messageId: 'run_01JH8Z3K5W6X7Y8Z9A0B1C2D3E',
      contentType: 'application/json',
      deliveryMode: 2,
      appId: 'belfry',
    });
    const headers = stringHeaders(m!);
    expect(headers).toMatchObject({
      'webhook-id': 'run_01JH8Z3K5W6X7Y8Z9A0B1C2D3E',
      'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
      'idempotency-key': 'run_01JH8Z3K5W6X7Y8Z9A0B1C2D3E',
      'belfry-job-id': 'job_01JH8Z3K5W6X7Y8Z9A0B1C2D3F',
      'belfry-scheduled-time': '2025-03-30T01:30:00.000Z',
      'belfry-attempt': '2',
      'content-type': 'application/json',
      'x-team': 'billing',
    });
    // The same check a webhook receiver makes, over the message body.
    expect(new Webhook(SECRET).verify(m!.content.toString('utf8'), headers)).toEqual(payload);
    // What is stored with the attempt has the signature redacted.
    expect(outcome.requestHeaders?.['webhook-signature']).toBe('***');
  });

  it('publishes transient messages when persistent is false, and reuses one connection per tenant and broker', async () => {
    const tenantId = `ten_${suffix()}`;
    for (const attempt of [1, 2, 3]) {
      const outcome = await handler.execute(
        target({ persistent: false }),
        { attempt },
        makeContext({ tenantId, attempt }),
      );
      expect(outcome.ok).toBe(true);
    }
    const messages = await drain();
    expect(messages.map((m) => m.properties.deliveryMode)).toEqual([1, 1, 1]);
    expect(messages.map((m) => stringHeaders(m)['belfry-attempt'])).toEqual(['1', '2', '3']);
    expect(handler.connections(tenantId)).toBe(1);
  });

  it('publishes to the default exchange by queue name', async () => {
    const outcome = await handler.execute(target({ exchange: '', routingKey: queue }), { direct: true }, makeContext());
    expect(outcome.ok).toBe(true);
    expect((await drain()).map((m) => m.content.toString())).toEqual(['{"direct":true}']);
  });
});

describe('refusals', () => {
  it('an unroutable message (no queue bound for the routing key) is a retryable failure and is not delivered', async () => {
    const outcome = await handler.execute(target({ routingKey: 'nobody-listens' }), { x: 1 }, makeContext());
    expect(outcome).toMatchObject({ ok: false, failure: 'connection' });
    expect(outcome.error).toMatch(/^unroutable: .*312 NO_ROUTE/);
    expect(isRetryable(outcome.failure!)).toBe(true);
    expect(await drain()).toEqual([]);
  });

  it('a missing exchange is retryable, and fails only its own publish: the connection keeps working', async () => {
    const tenantId = `ten_${suffix()}`;
    const [missing, fine] = await Promise.all([
      handler.execute(target({ exchange: `absent-${suffix()}` }), {}, makeContext({ tenantId })),
      handler.execute(target(), { fine: true }, makeContext({ tenantId })),
    ]);
    expect(missing).toMatchObject({ ok: false, failure: 'connection' });
    expect(missing.error).toMatch(/does not exist .*404/);
    expect(fine.ok).toBe(true);
    expect((await handler.execute(target(), { after: true }, makeContext({ tenantId }))).ok).toBe(true);
    expect((await drain()).map((m) => m.content.toString())).toEqual(['{"fine":true}', '{"after":true}']);
    expect(handler.connections(tenantId)).toBe(1);
  });

  it('a wrong password is final: not retryable, and the error does not show the password', async () => {
    const outcome = await handler.execute(
      target({ url: 'amqp://guest:not-the-password@127.0.0.1:5672' }),
      {},
      makeContext({ tenantId: `ten_${suffix()}` }),
    );
    expect(outcome).toMatchObject({ ok: false, failure: 'refused' });
    expect(outcome.error).toMatch(/authentication refused by amqp:\/\/127\.0\.0\.1:5672/);
    expect(outcome.error).not.toContain('not-the-password');
    expect(isRetryable(outcome.failure!)).toBe(false);
  });

  it('a broker that is down fails retryably; once it is up the next attempt is confirmed', async () => {
    const proxy = await tcpProxy(5672);
    const url = `amqp://guest:guest@127.0.0.1:${proxy.port}`;
    const tenantId = `ten_${suffix()}`;
    try {
      const down = await handler.execute(target({ url }), { n: 1 }, makeContext({ tenantId, attempt: 1 }));
      expect(down).toMatchObject({ ok: false, failure: 'connection' });
      expect(down.error).toMatch(/connection refused/);
      expect(isRetryable(down.failure!)).toBe(true);

      await proxy.start();
      const up = await handler.execute(target({ url }), { n: 1 }, makeContext({ tenantId, attempt: 2 }));
      expect(up.ok).toBe(true);
      const messages = await drain();
      expect(messages.map((m) => stringHeaders(m)['belfry-attempt'])).toEqual(['2']);

      // The broker goes away under a pooled connection: the next publish fails, the one after reconnects.
      await proxy.stop();
      await proxy.start();
      let outcome = await handler.execute(target({ url }), { n: 2 }, makeContext({ tenantId, attempt: 3 }));
      if (!outcome.ok)
        outcome = await handler.execute(target({ url }), { n: 2 }, makeContext({ tenantId, attempt: 4 }));
      expect(outcome.ok).toBe(true);
      expect((await drain()).map((m) => m.content.toString())).toEqual(['{"n":2}']);
    } finally {
      await proxy.stop();
    }
  });

  it("a broker that accepts and never answers times the attempt out, without holding up another tenant's publishes", async () => {
    const silent = await tcpProxy(5672, { silent: true });
    await silent.start();
    try {
      const stuck = handler.execute(
        target({ url: `amqp://guest:guest@127.0.0.1:${silent.port}` }),
        {},
        makeContext({ tenantId: `ten_${suffix()}`, timeoutMs: 1_500 }),
      );
      const other = await handler.execute(target(), { other: true }, makeContext({ tenantId: `ten_${suffix()}` }));
      expect(other.ok).toBe(true);
      const outcome = await stuck;
      expect(outcome).toMatchObject({ ok: false, failure: 'timeout' });
      expect(outcome.error).toMatch(/timed out after 1\.5s waiting for amqp:\/\/127\.0\.0\.1:\d+ to confirm/);
      expect((await drain()).map((m) => m.content.toString())).toEqual(['{"other":true}']);
    } finally {
      await silent.stop();
    }
  });

  it('refuses a broker on a private address unless private targets are allowed, before connecting', async () => {
    const guarded = new AmqpHandler({ allowPrivateTargets: false });
    const proxy = await tcpProxy(5672);
    await proxy.start();
    try {
      const outcome = await guarded.execute(
        target({ url: `amqp://guest:guest@127.0.0.1:${proxy.port}` }),
        {},
        makeContext(),
      );
      expect(outcome).toMatchObject({ ok: false, failure: 'refused' });
      expect(outcome.error).toMatch(/refused: target address 127\.0\.0\.1 \(loopback\)/);
      expect(isRetryable(outcome.failure!)).toBe(false);
      expect(proxy.accepted).toBe(0);
      const byName = await guarded.execute(target({ url: 'amqp://guest:guest@localhost:5672' }), {}, makeContext());
      expect(byName).toMatchObject({ ok: false, failure: 'refused' });
      expect(byName.error).toMatch(/target localhost does not resolve to a public address/);
    } finally {
      await guarded.close();
      await proxy.stop();
    }
  });

  it('keeps at most perTenant connections: an idle one is closed to make room', async () => {
    const capped = new AmqpHandler({ allowPrivateTargets: true, perTenant: 1 });
    const proxy = await tcpProxy(5672);
    await proxy.start();
    const tenantId = `ten_${suffix()}`;
    try {
      expect((await capped.execute(target(), { a: 1 }, makeContext({ tenantId }))).ok).toBe(true);
      const other = target({ url: `amqp://guest:guest@127.0.0.1:${proxy.port}` });
      expect((await capped.execute(other, { b: 1 }, makeContext({ tenantId }))).ok).toBe(true);
      expect(capped.connections(tenantId)).toBe(1);
      expect(await drain()).toHaveLength(2);
    } finally {
      await capped.close();
      await proxy.stop();
    }
  });
});
