// amqps:// against the real RabbitMQ: it has no TLS listener here (and must not be
// reconfigured), so each test run makes its own CA with openssl and a TLS-terminating proxy
// on a loopback port that forwards to 127.0.0.1:5672. A private CA is trusted the way an
// operator trusts one (docs/operations.md): NODE_EXTRA_CA_CERTS, which Node reads only at
// process start — so the trusted publishes run in a child process started with it
// (testing-publish-child.ts), as the engine would be. Without it the certificate is refused.
import { randomBytes } from 'node:crypto';
import { type Channel, type ChannelModel, connect, type Message } from 'amqplib';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isRetryable } from '@belfry/core';
import { makeContext, SECRET } from '../testing';
import { publishTrustingCa, type TestCa, type TlsProxy, testCa, tlsProxy } from '../testing-tls';
import { AmqpHandler, type AmqpTarget } from './amqp';

const BROKER = 'amqp://guest:guest@127.0.0.1:5672';
const suffix = () => randomBytes(6).toString('hex');

let ca: TestCa;
let proxy: TlsProxy; // certificate for IP:127.0.0.1 and DNS:localhost
let wrongName: TlsProxy; // certificate for DNS:other.example only
let admin: ChannelModel;
let channel: Channel;
const exchange = `belfry-test-${suffix()}`;
const queue = `belfry-test-${suffix()}`;

beforeAll(async () => {
  ca = await testCa();
  proxy = await tlsProxy(5672, await ca.issue('broker', 'IP:127.0.0.1,DNS:localhost'));
  wrongName = await tlsProxy(5672, await ca.issue('other', 'DNS:other.example'));
  admin = await connect(BROKER);
  channel = await admin.createChannel();
  await channel.assertExchange(exchange, 'direct', { durable: false, autoDelete: false });
  await channel.assertQueue(queue, { durable: false, exclusive: true });
  await channel.bindQueue(queue, exchange, 'reports');
}, 60_000);
afterAll(async () => {
  await channel?.deleteExchange(exchange).catch(() => {});
  await admin?.close();
  await proxy?.close();
  await wrongName?.close();
  await ca?.remove();
});

const target = (url: string): AmqpTarget => ({
  type: 'amqp',
  url,
  exchange,
  routingKey: 'reports',
  persistent: true,
  headers: { 'X-Team': 'billing' },
});

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

describe('amqps:// with a private CA trusted through NODE_EXTRA_CA_CERTS', () => {
  it('publishes over TLS by IP and by host name, and refuses a certificate for another name', async () => {
    const byIp = 'run_01JH8Z3K5W6X7Y8Z9A0B1C2D41';
    const byName = 'run_01JH8Z3K5W6X7Y8Z9A0B1C2D42';
    const mismatch = 'run_01JH8Z3K5W6X7Y8Z9A0B1C2D43';
    const [ip, name, wrong] = await publishTrustingCa(
      ca.caFile,
      [
        { target: target(`amqps://guest:guest@127.0.0.1:${proxy.port}/`), runId: byIp, payload: { via: 'ip' } },
        { target: target(`amqps://guest:guest@localhost:${proxy.port}/`), runId: byName, payload: { via: 'name' } },
        { target: target(`amqps://guest:guest@127.0.0.1:${wrongName.port}/`), runId: mismatch, payload: { via: 'x' } },
      ],
      SECRET,
    );

    expect(ip).toMatchObject({ ok: true, error: null });
    expect(ip!.responseSnippet).toBe(
      `confirmed by amqps://127.0.0.1:${proxy.port} (exchange ${JSON.stringify(exchange)}, routing key "reports")`,
    );
    expect(name).toMatchObject({ ok: true, error: null });
    expect(name!.responseSnippet).toMatch(new RegExp(`^confirmed by amqps://localhost:${proxy.port} `));

    // The certificate is valid and trusted but names other.example, not 127.0.0.1: retried, not dead.
    expect(wrong).toMatchObject({ ok: false, failure: 'connection' });
    expect(wrong!.error).toMatch(
      /^TLS handshake with amqps:\/\/127\.0\.0\.1:\d+ failed: .*ERR_TLS_CERT_ALTNAME_INVALID/,
    );
    expect(isRetryable(wrong!.failure!)).toBe(true);

    // Exactly the two trusted publishes arrived, through the proxy, signed, with the run id as message id.
    const messages = await drain();
    expect(messages.map((m) => m.properties.messageId)).toEqual([byIp, byName]);
    for (const m of messages) {
      const headers = stringHeaders(m);
      expect(headers).toMatchObject({
        'webhook-id': m.properties.messageId,
        'idempotency-key': m.properties.messageId,
        'belfry-attempt': '1',
        'x-team': 'billing',
      });
      expect(m.properties).toMatchObject({ deliveryMode: 2, appId: 'belfry', contentType: 'application/json' });
      expect(new Webhook(SECRET).verify(m.content.toString('utf8'), headers)).toEqual(
        JSON.parse(m.content.toString('utf8')),
      );
    }
    expect(messages.map((m) => JSON.parse(m.content.toString('utf8')))).toEqual([{ via: 'ip' }, { via: 'name' }]);
  });
});

describe('amqps:// without the CA', () => {
  it('refuses the untrusted certificate with a clear, retryable TLS error and publishes nothing', async () => {
    const handler = new AmqpHandler({ allowPrivateTargets: true });
    try {
      const handshakes = proxy.handshakes;
      const outcome = await handler.execute(
        target(`amqps://guest:guest@127.0.0.1:${proxy.port}/`),
        { untrusted: true },
        makeContext(),
      );
      expect(outcome).toMatchObject({ ok: false, failure: 'connection' });
      expect(outcome.error).toMatch(
        /^TLS handshake with amqps:\/\/127\.0\.0\.1:\d+ failed: .*UNABLE_TO_VERIFY_LEAF_SIGNATURE.*NODE_EXTRA_CA_CERTS/,
      );
      expect(outcome.error).not.toContain('guest:guest');
      expect(isRetryable(outcome.failure!)).toBe(true);
      expect(proxy.handshakes).toBe(handshakes); // the client walked away before the session began
      expect(await drain()).toEqual([]);
    } finally {
      await handler.close();
    }
  });
});
