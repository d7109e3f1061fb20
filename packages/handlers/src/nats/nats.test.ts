// The nats handler against real NATS JetStream: the machine's server on 127.0.0.1:4222 with a
// stream of this file's own (random name, memory storage, deleted afterwards), and private
// nats-server processes for a login and for a server that is down, then up. Each test reads
// back what the stream stored: headers, signature, Nats-Msg-Id, one message per occurrence.
import { randomBytes } from 'node:crypto';
import { connect, type JetStreamManager, type NatsConnection, RetentionPolicy, StorageType } from 'nats';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isRetryable } from '@belfry/core';
import { closedPort, makeContext, SECRET, startNatsServer, tcpProxy } from '../testing';
import { NatsHandler, type NatsTarget } from './nats';

const SERVER = 'nats://127.0.0.1:4222';
const suffix = () => randomBytes(6).toString('hex');

let nc: NatsConnection;
let jsm: JetStreamManager;
let handler: NatsHandler;
const stream = `BELFRY_TEST_${suffix()}`;
const prefix = `belfry-test.${suffix()}`;

async function addStream(manager: JetStreamManager, name: string, subjects: string[]) {
  await manager.streams.add({
    name,
    subjects,
    storage: StorageType.Memory,
    retention: RetentionPolicy.Limits,
    duplicate_window: 60_000_000_000, // 60 s in nanoseconds
  });
}

beforeAll(async () => {
  nc = await connect({ servers: SERVER });
  jsm = await nc.jetstreamManager();
  await addStream(jsm, stream, [`${prefix}.>`]);
  handler = new NatsHandler({ allowPrivateTargets: true });
});
afterAll(async () => {
  await handler?.close();
  await jsm?.streams.delete(stream).catch(() => {});
  await nc?.close();
});

const target = (extra: Partial<NatsTarget> = {}): NatsTarget => ({
  type: 'nats',
  url: SERVER,
  subject: `${prefix}.reports`,
  headers: {},
  ...extra,
});

interface Stored {
  subject: string;
  body: string;
  headers: Record<string, string>;
}

/** Every message the stream holds past `after` (its last sequence when the test began). */
async function storedSince(manager: JetStreamManager, name: string, after: number): Promise<Stored[]> {
  const info = await manager.streams.info(name);
  const out: Stored[] = [];
  for (let seq = after + 1; seq <= info.state.last_seq; seq++) {
    const m = await manager.streams.getMessage(name, { seq });
    const headers: Record<string, string> = {};
    for (const key of m.header?.keys() ?? []) headers[key] = m.header!.get(key);
    out.push({ subject: m.subject, body: new TextDecoder().decode(m.data), headers });
  }
  return out;
}
const lastSeq = async (manager = jsm, name = stream) => (await manager.streams.info(name)).state.last_seq;

describe('publishing', () => {
  it('publishes one signed message with Nats-Msg-Id = the run id, and reports the PubAck', async () => {
    const before = await lastSeq();
    const payload = { report: 'daily', emoji: '🔔' };
    const runId = `run_${suffix()}`;
    const outcome = await handler.execute(
      target({ headers: { 'X-Team': 'billing' } }),
      payload,
      makeContext({ runId, attempt: 1 }),
    );
    expect(outcome).toMatchObject({ ok: true, error: null, httpStatus: null });
    expect(outcome.responseSnippet).toMatch(
      new RegExp(`^PubAck from nats://127\\.0\\.0\\.1:4222: stream "${stream}", sequence ${before + 1}$`),
    );
    const stored = await storedSince(jsm, stream, before);
    expect(stored).toHaveLength(1);
    const [m] = stored;
    expect(m!.subject).toBe(`${prefix}.reports`);
    expect(m!.body).toBe(JSON.stringify(payload));
    expect(m!.headers).toMatchObject({
      'Nats-Msg-Id': runId,
      'webhook-id': runId,
      'idempotency-key': runId,
      'belfry-job-id': 'job_01JH8Z3K5W6X7Y8Z9A0B1C2D3F',
      'belfry-scheduled-time': '2025-03-30T01:30:00.000Z',
      'belfry-attempt': '1',
      'content-type': 'application/json',
      'x-team': 'billing',
    });
    expect(new Webhook(SECRET).verify(m!.body, m!.headers)).toEqual(payload);
    expect(outcome.requestHeaders?.['webhook-signature']).toBe('***');
  });

  it('a second attempt of the same run is acknowledged as a duplicate and stored once', async () => {
    const before = await lastSeq();
    const runId = `run_${suffix()}`;
    const tenantId = `ten_${suffix()}`;
    const first = await handler.execute(target(), { n: 1 }, makeContext({ runId, tenantId, attempt: 1 }));
    const second = await handler.execute(target(), { n: 1 }, makeContext({ runId, tenantId, attempt: 2 }));
    expect(first.ok && second.ok).toBe(true);
    expect(second.responseSnippet).toMatch(/duplicate of an earlier attempt: stored once/);
    expect(await storedSince(jsm, stream, before)).toHaveLength(1);
    expect(handler.connections(tenantId)).toBe(1);
  });
});

describe('refusals', () => {
  it('a subject no stream captures is a retryable failure', async () => {
    const outcome = await handler.execute(target({ subject: `nobody-${suffix()}.x` }), {}, makeContext());
    expect(outcome).toMatchObject({ ok: false, failure: 'connection' });
    expect(outcome.error).toMatch(
      /^no JetStream stream captures subject "nobody-[0-9a-f]+\.x" on nats:\/\/127\.0\.0\.1:4222/,
    );
    expect(isRetryable(outcome.failure!)).toBe(true);
  });

  it('a wrong password is final, and the error does not show it', async () => {
    const server = await startNatsServer({ user: 'belfry', pass: 'right-password' });
    try {
      const url = `nats://belfry:wrong-password@127.0.0.1:${server.port}`;
      const outcome = await handler.execute(target({ url }), {}, makeContext({ tenantId: `ten_${suffix()}` }));
      expect(outcome).toMatchObject({ ok: false, failure: 'refused' });
      expect(outcome.error).toMatch(/authentication refused by nats:\/\/127\.0\.0\.1:\d+ \(AUTHORIZATION_VIOLATION\)/);
      expect(outcome.error).not.toContain('wrong-password');
      expect(isRetryable(outcome.failure!)).toBe(false);

      // With the right password it logs in (no stream there: retryable, not an auth failure).
      const good = await handler.execute(
        target({ url: `nats://belfry:right-password@127.0.0.1:${server.port}` }),
        {},
        makeContext({ tenantId: `ten_${suffix()}` }),
      );
      expect(good).toMatchObject({ ok: false, failure: 'connection' });
      expect(good.error).toMatch(/no JetStream stream/);
    } finally {
      await server.stop();
    }
  });

  it('a server that is down fails retryably; once it is up (with a stream) the next attempt is acknowledged', async () => {
    const port = await closedPort();
    const url = `nats://127.0.0.1:${port}`;
    const tenantId = `ten_${suffix()}`;
    const runId = `run_${suffix()}`;
    const down = await handler.execute(target({ url }), { n: 1 }, makeContext({ runId, tenantId, attempt: 1 }));
    expect(down).toMatchObject({ ok: false, failure: 'connection' });
    expect(down.error).toMatch(/connection refused/);

    const server = await startNatsServer({ port });
    const own = await connect({ servers: url });
    try {
      const manager = await own.jetstreamManager();
      await addStream(manager, 'UP', [`${prefix}.>`]);
      const up = await handler.execute(target({ url }), { n: 1 }, makeContext({ runId, tenantId, attempt: 2 }));
      expect(up.ok).toBe(true);
      const stored = await storedSince(manager, 'UP', 0);
      expect(stored.map((m) => [m.headers['Nats-Msg-Id'], m.headers['belfry-attempt']])).toEqual([[runId, '2']]);
    } finally {
      await own.close();
      await server.stop();
    }
    // The server went away under the pooled connection: it leaves the pool.
    const gone = await handler.execute(target({ url }), {}, makeContext({ tenantId, attempt: 3 }));
    expect(gone).toMatchObject({ ok: false, failure: 'connection' });
  });

  it("a server that accepts and never answers times the attempt out, without holding up another tenant's publishes", async () => {
    const silent = await tcpProxy(4222, { silent: true });
    await silent.start();
    try {
      const stuck = handler.execute(
        target({ url: `nats://127.0.0.1:${silent.port}` }),
        {},
        makeContext({ tenantId: `ten_${suffix()}`, timeoutMs: 1_500 }),
      );
      const other = await handler.execute(target(), { other: true }, makeContext({ tenantId: `ten_${suffix()}` }));
      expect(other.ok).toBe(true);
      const outcome = await stuck;
      expect(outcome).toMatchObject({ ok: false, failure: 'timeout' });
      expect(outcome.error).toMatch(/timed out after 1\.5s waiting for nats:\/\/127\.0\.0\.1:\d+ to confirm/);
    } finally {
      await silent.stop();
    }
  });

  it('refuses a server on a private address unless private targets are allowed, before connecting', async () => {
    const guarded = new NatsHandler({ allowPrivateTargets: false });
    const proxy = await tcpProxy(4222);
    await proxy.start();
    try {
      const outcome = await guarded.execute(target({ url: `nats://127.0.0.1:${proxy.port}` }), {}, makeContext());
      expect(outcome).toMatchObject({ ok: false, failure: 'refused' });
      expect(outcome.error).toMatch(/refused: target address 127\.0\.0\.1 \(loopback\)/);
      expect(proxy.accepted).toBe(0);
    } finally {
      await guarded.close();
      await proxy.stop();
    }
  });
});
