// tls:// against a real NATS server with TLS: a private nats-server (the machine's binary) with
// JetStream and a certificate from a CA this file makes with openssl. NATS upgrades to TLS
// inside its protocol (after a plain INFO), so unlike amqps (amqp/amqps.test.ts) a plain TLS
// proxy in front of 127.0.0.1:4222 cannot stand in; the server speaks TLS itself. The CA is
// trusted as an operator trusts one: NODE_EXTRA_CA_CERTS in a child process started with it
// (testing-publish-child.ts); without it the certificate is refused.
import { readFile } from 'node:fs/promises';
import { connect, type NatsConnection, RetentionPolicy, StorageType } from 'nats';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isRetryable } from '@belfry/core';
import { makeContext, type NatsServer, SECRET, startNatsServer } from '../testing';
import { publishTrustingCa, type TestCa, testCa } from '../testing-tls';
import { NatsHandler, type NatsTarget } from './nats';

const STREAM = 'BELFRY_TLS';
let ca: TestCa;
let server: NatsServer; // certificate for IP:127.0.0.1 and DNS:localhost
let wrongName: NatsServer; // certificate for DNS:other.example only
let nc: NatsConnection;

beforeAll(async () => {
  ca = await testCa();
  server = await startNatsServer({ tls: await ca.issue('nats', 'IP:127.0.0.1,DNS:localhost') });
  wrongName = await startNatsServer({ tls: await ca.issue('other', 'DNS:other.example') });
  nc = await connect({ servers: `127.0.0.1:${server.port}`, tls: { ca: await readFile(ca.caFile, 'utf8') } });
  const jsm = await nc.jetstreamManager();
  await jsm.streams.add({
    name: STREAM,
    subjects: ['reports.>'],
    storage: StorageType.Memory,
    retention: RetentionPolicy.Limits,
  });
}, 60_000);
afterAll(async () => {
  await nc?.close();
  await server?.stop();
  await wrongName?.stop();
  await ca?.remove();
});

const target = (url: string): NatsTarget => ({
  type: 'nats',
  url,
  subject: 'reports.daily',
  headers: { 'X-Team': 'billing' },
});

async function stored() {
  const jsm = await nc.jetstreamManager();
  const info = await jsm.streams.info(STREAM);
  const messages = [];
  for (let seq = info.state.first_seq; seq <= info.state.last_seq && info.state.messages > 0; seq++) {
    const m = await jsm.streams.getMessage(STREAM, { seq });
    const headers: Record<string, string> = {};
    for (const [k, v] of m.header ?? []) headers[k.toLowerCase()] = v.join(',');
    messages.push({ body: new TextDecoder().decode(m.data), headers });
  }
  return messages;
}

describe('tls:// with a private CA trusted through NODE_EXTRA_CA_CERTS', () => {
  it('publishes over TLS by IP and by host name, and refuses a certificate for another name', async () => {
    const byIp = 'run_01JH8Z3K5W6X7Y8Z9A0B1C2D51';
    const byName = 'run_01JH8Z3K5W6X7Y8Z9A0B1C2D52';
    const [ip, name, wrong] = await publishTrustingCa(
      ca.caFile,
      [
        { target: target(`tls://127.0.0.1:${server.port}`), runId: byIp, payload: { via: 'ip' } },
        { target: target(`tls://localhost:${server.port}`), runId: byName, payload: { via: 'name' } },
        { target: target(`tls://127.0.0.1:${wrongName.port}`), runId: 'run_01JH8Z3K5W6X7Y8Z9A0B1C2D53', payload: {} },
      ],
      SECRET,
    );
    expect(ip).toMatchObject({ ok: true, error: null });
    expect(ip!.responseSnippet).toBe(`PubAck from tls://127.0.0.1:${server.port}: stream "${STREAM}", sequence 1`);
    expect(name).toMatchObject({ ok: true, error: null });
    expect(name!.responseSnippet).toMatch(new RegExp(`^PubAck from tls://localhost:${server.port}: `));

    expect(wrong).toMatchObject({ ok: false, failure: 'connection' });
    expect(wrong!.error).toMatch(/^TLS handshake with tls:\/\/127\.0\.0\.1:\d+ failed: .*ERR_TLS_CERT_ALTNAME_INVALID/);
    expect(isRetryable(wrong!.failure!)).toBe(true);

    const messages = await stored();
    expect(messages.map((m) => m.headers['nats-msg-id'])).toEqual([byIp, byName]);
    for (const m of messages) {
      expect(m.headers).toMatchObject({ 'webhook-id': m.headers['nats-msg-id'], 'x-team': 'billing' });
      expect(new Webhook(SECRET).verify(m.body, m.headers)).toEqual(JSON.parse(m.body));
    }
  });
});

describe('tls:// without the CA', () => {
  it('refuses the untrusted certificate with a clear, retryable TLS error', async () => {
    const handler = new NatsHandler({ allowPrivateTargets: true });
    try {
      const outcome = await handler.execute(target(`tls://127.0.0.1:${server.port}`), { x: 1 }, makeContext());
      expect(outcome).toMatchObject({ ok: false, failure: 'connection' });
      expect(outcome.error).toMatch(
        /^TLS handshake with tls:\/\/127\.0\.0\.1:\d+ failed: .*UNABLE_TO_VERIFY_LEAF_SIGNATURE.*NODE_EXTRA_CA_CERTS/,
      );
      expect(isRetryable(outcome.failure!)).toBe(true);
    } finally {
      await handler.close();
    }
  });
});
