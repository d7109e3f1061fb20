// The HTTP handler's transport behaviour against real loopback servers: deadlines,
// cancellation, connection failures, bounded reading of hostile response bodies,
// keep-alive reuse, and the SSRF guard end to end (refused targets see no request).
import type { ServerResponse } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { HttpHandler, type HttpTarget } from './http';
import { closedPort, makeContext, startServer, tcpProxy, type TestServer } from '../testing';
import type { TenantAgents } from './tenant-agents';

const post = (url: string): HttpTarget => ({ type: 'http', url, method: 'POST' });

describe('deadlines and failures', () => {
  let handler: HttpHandler;
  let server: TestServer | undefined;
  beforeAll(() => {
    handler = new HttpHandler({ allowPrivateTargets: true });
  });
  afterAll(() => handler.close());
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('aborts a target that never answers at timeoutMs', async () => {
    server = await startServer(() => {}); // accepts, reads the request, never responds
    const outcome = await handler.execute(post(`${server.url}/slow`), {}, makeContext({ timeoutMs: 300 }));
    expect(outcome).toMatchObject({ ok: false, failure: 'timeout', error: 'timed out after 0.3s', httpStatus: null });
    expect(server.requests).toHaveLength(1);
  });

  it('counts a body that stalls after the headers against the same deadline', async () => {
    server = await startServer((_req, res) => {
      res.writeHead(200, { 'content-length': '100' });
      res.write('partial');
    });
    const outcome = await handler.execute(post(`${server.url}/`), {}, makeContext({ timeoutMs: 300 }));
    expect(outcome).toMatchObject({ ok: false, failure: 'timeout', httpStatus: 200 });
  });

  it('takes a 2xx whose body stalls after the snippet as delivered: the target answered', async () => {
    server = await startServer((_req, res) => {
      res.writeHead(200, { 'content-length': '20000' });
      res.write('x'.repeat(5_000)); // more than the 4096 bytes kept, then nothing
    });
    const outcome = await handler.execute(post(`${server.url}/`), {}, makeContext({ timeoutMs: 300 }));
    expect(outcome).toMatchObject({ ok: true, httpStatus: 200, error: null });
    expect(outcome.responseSnippet).toHaveLength(4096);
  });

  it('reports a cancelled run as a retryable connection failure', async () => {
    server = await startServer(() => {});
    const controller = new AbortController();
    const pending = handler.execute(post(`${server.url}/`), {}, makeContext({ signal: controller.signal }));
    while (server.requests.length === 0) await new Promise((r) => setTimeout(r, 5));
    controller.abort(new Error('node shutting down'));
    expect(await pending).toMatchObject({ ok: false, failure: 'connection', error: 'cancelled: node shutting down' });
  });

  it('does not send anything when the signal is already aborted', async () => {
    server = await startServer((_req, res) => res.end());
    const controller = new AbortController();
    controller.abort();
    const outcome = await handler.execute(post(`${server.url}/`), {}, makeContext({ signal: controller.signal }));
    expect(outcome).toMatchObject({ ok: false, failure: 'connection', error: 'cancelled' });
    expect(server.requests).toHaveLength(0);
  });

  it('reports a refused connection as a connection failure', async () => {
    const port = await closedPort();
    const outcome = await handler.execute(post(`http://127.0.0.1:${port}/`), {}, makeContext());
    expect(outcome).toMatchObject({ ok: false, failure: 'connection', httpStatus: null });
    expect(outcome.error).toBe(`connection refused by 127.0.0.1:${port}`);
  });

  it('reports a connection dropped before the response as a connection failure', async () => {
    server = await startServer((req) => req.socket.destroy());
    const outcome = await handler.execute(post(`${server.url}/`), {}, makeContext());
    expect(outcome).toMatchObject({ ok: false, failure: 'connection' });
    expect(outcome.error).toContain(`127.0.0.1:${server.port}`);
  });
});

describe('response bodies', () => {
  let handler: HttpHandler;
  let server: TestServer | undefined;
  beforeAll(() => {
    handler = new HttpHandler({ allowPrivateTargets: true });
  });
  afterAll(() => handler.close());
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  const fetchSnippet = async (body: string | Buffer) => {
    server = await startServer((_req, res) => res.end(body));
    const outcome = await handler.execute(post(`${server.url}/`), {}, makeContext());
    expect(outcome.ok).toBe(true);
    return outcome.responseSnippet;
  };

  it('keeps short bodies whole and an empty body as null', async () => {
    expect(await fetchSnippet('{"received":true}')).toBe('{"received":true}');
    await server!.close();
    expect(await fetchSnippet('')).toBeNull();
  });

  it('caps the snippet at 4096 bytes', async () => {
    const snippet = await fetchSnippet('a'.repeat(10_000));
    expect(snippet).toBe('a'.repeat(4096));
  });

  it('cuts before a multi-byte character that straddles the limit', async () => {
    // '€' is 3 bytes: at offset 4095 it would need bytes 4095..4097.
    const straddling = await fetchSnippet(`${'a'.repeat(4095)}€${'b'.repeat(100)}`);
    expect(straddling).toBe('a'.repeat(4095));
    await server!.close();
    // At offset 4093 it ends exactly on the limit and is kept.
    const fitting = await fetchSnippet(`${'a'.repeat(4093)}€${'b'.repeat(100)}`);
    expect(fitting).toBe(`${'a'.repeat(4093)}€`);
    expect(Buffer.byteLength(fitting!)).toBe(4096);
    await server!.close();
    // A 4-byte character, and a body exactly 4096 bytes long.
    expect(await fetchSnippet(`${'a'.repeat(4094)}🔔`)).toBe('a'.repeat(4094));
    await server!.close();
    expect(await fetchSnippet(`${'a'.repeat(4092)}🔔`)).toBe(`${'a'.repeat(4092)}🔔`);
  });

  it('honours a custom maxResponseBytes', async () => {
    const small = new HttpHandler({ allowPrivateTargets: true, maxResponseBytes: 10 });
    server = await startServer((_req, res) => res.end('0123456789abcdef'));
    const outcome = await small.execute(post(`${server.url}/`), {}, makeContext());
    await small.close();
    expect(outcome.responseSnippet).toBe('0123456789');
  });

  it('stops reading a huge streamed body instead of buffering it', async () => {
    const total = 50 * 1024 * 1024;
    const chunk = Buffer.alloc(64 * 1024, 'x');
    let written = 0;
    let closed!: Promise<void>;
    server = await startServer((_req, res) => {
      closed = new Promise((resolve) => res.on('close', resolve));
      res.writeHead(200, { 'content-length': String(total) });
      const pump = () => {
        while (written < total && !res.destroyed) {
          written += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        if (written >= total) res.end();
      };
      pump();
    });
    const outcome = await handler.execute(post(`${server.url}/`), {}, makeContext({ timeoutMs: 30_000 }));
    expect(outcome).toMatchObject({ ok: true, httpStatus: 200 });
    expect(Buffer.byteLength(outcome.responseSnippet!)).toBeLessThanOrEqual(4096);
    await closed; // the handler hung up on the target...
    expect(written).toBeLessThan(total); // ...long before it had sent everything
  });
});

describe('keep-alive', () => {
  let handler: HttpHandler;
  let server: TestServer;
  let body = 'ok';
  beforeAll(async () => {
    handler = new HttpHandler({ allowPrivateTargets: true });
    server = await startServer((_req, res) => res.end(body));
  });
  afterAll(async () => {
    await handler.close();
    await server.close();
  });

  it('reuses one socket for sequential requests to an origin', async () => {
    await handler.execute(post(`${server.url}/one`), {}, makeContext());
    await handler.execute(post(`${server.url}/two`), {}, makeContext());
    const [one, two] = server.requests;
    expect(two!.socket === one!.socket).toBe(true);
    expect(two!.remotePort).toBe(one!.remotePort);
  });

  it('still reuses the socket after a response longer than the snippet (short remainder drained)', async () => {
    body = 'z'.repeat(20_000);
    const before = server.requests.length;
    await handler.execute(post(`${server.url}/long`), {}, makeContext());
    body = 'ok';
    await handler.execute(post(`${server.url}/after`), {}, makeContext());
    const [long, after] = server.requests.slice(before);
    expect(after!.socket === long!.socket).toBe(true);
    expect(after!.remotePort).toBe(long!.remotePort);
  });
});

describe('a request queued for a busy socket', () => {
  it("leaves the tenant's queue at its deadline, without opening a socket of its own", async () => {
    const handler = new HttpHandler({ allowPrivateTargets: true, connectionsPerOrigin: 1 });
    const target = await tcpProxy(await closedPort(), { silent: true }); // accepts, never answers
    await target.start();
    try {
      const url = `http://127.0.0.1:${target.port}/`;
      let firstDone = false;
      const first = handler.execute(post(url), {}, makeContext({ timeoutMs: 1_500 })).finally(() => {
        firstDone = true;
      });
      while (target.accepted < 1) await new Promise((r) => setTimeout(r, 5));
      // The tenant's only socket to the origin is taken: this one waits in the pool, and its
      // deadline comes while it waits.
      const queued = await handler.execute(post(url), {}, makeContext({ timeoutMs: 200 }));
      expect(queued).toMatchObject({ ok: false, failure: 'timeout', error: 'timed out after 0.2s' });
      expect(firstDone).toBe(false);
      expect(await first).toMatchObject({ ok: false, failure: 'timeout' });
      // The first's abort destroyed its socket. The queued request, settled long ago, is
      // taken out of the queue when it reaches the connection: it opens none.
      await new Promise((r) => setTimeout(r, 300));
      expect(target.accepted).toBe(1);
    } finally {
      await handler.close();
      await target.stop();
    }
  });
});

describe('tenant isolation', () => {
  let server: TestServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it("a tenant whose requests hang at an origin does not hold up another tenant's requests to it", async () => {
    const handler = new HttpHandler({ allowPrivateTargets: true, connectionsPerOrigin: 4 });
    const held: ServerResponse[] = [];
    server = await startServer((req, res) => {
      if (req.url === '/hang') held.push(res);
      else res.end('ok');
    });
    const url = server.url;
    // The hog's pool is full: 4 requests sit at the target, 8 more wait in its pool.
    const hog = Array.from({ length: 12 }, () =>
      handler.execute(post(`${url}/hang`), {}, makeContext({ tenantId: 'ten_hog', timeoutMs: 60_000 })),
    );
    while (held.length < 4) await new Promise((r) => setTimeout(r, 5));

    const small = await Promise.all(
      Array.from({ length: 6 }, () =>
        handler.execute(post(`${url}/quick`), {}, makeContext({ tenantId: 'ten_small' })),
      ),
    );
    expect(small.map((o) => o.ok)).toEqual([true, true, true, true, true, true]);
    // ... served while every one of the hog's requests was still hanging.
    expect(held).toHaveLength(4);
    expect(server.requests.filter((r) => r.url === '/quick')).toHaveLength(6);

    await server.close();
    server = undefined;
    expect((await Promise.all(hog)).every((o) => !o.ok)).toBe(true);
    await handler.close();
  });

  it('closes a tenant pool once it has been idle, and opens a new one on the next delivery', async () => {
    const handler = new HttpHandler({ allowPrivateTargets: true, tenantPoolIdleMs: 1_000 });
    server = await startServer((_req, res) => res.end('ok'));
    const agents = (handler as unknown as { agents: TenantAgents }).agents;
    await handler.execute(post(`${server.url}/`), {}, makeContext({ tenantId: 'ten_a' }));
    await handler.execute(post(`${server.url}/`), {}, makeContext({ tenantId: 'ten_b' }));
    expect(agents.size).toBe(2);
    agents.sweep(Date.now() + 1_000);
    expect(agents.size).toBe(0);
    const again = await handler.execute(post(`${server.url}/`), {}, makeContext({ tenantId: 'ten_a' }));
    expect(again.ok).toBe(true);
    expect(agents.size).toBe(1);
    await handler.close();
  });
});

describe('SSRF guard end to end', () => {
  let v4: TestServer;
  let v6: TestServer;
  let strict: HttpHandler;
  let permissive: HttpHandler;

  beforeAll(async () => {
    v4 = await startServer((_req, res) => res.end('reached'));
    v6 = await startServer((_req, res) => res.end('reached'), '::1');
    strict = new HttpHandler({ allowPrivateTargets: false });
    permissive = new HttpHandler({ allowPrivateTargets: true });
  });
  afterAll(async () => {
    await Promise.all([strict.close(), permissive.close(), v4.close(), v6.close()]);
  });

  const targets = () =>
    [
      [`http://127.0.0.1:${v4.port}/`, v4, '127.0.0.1 (loopback)'],
      [`http://localhost:${v4.port}/`, v4, 'target localhost does not resolve to a public address'],
      [`http://2130706433:${v4.port}/`, v4, '127.0.0.1 (loopback)'],
      [`http://0x7f.1:${v4.port}/`, v4, '127.0.0.1 (loopback)'],
      [`http://[::1]:${v6.port}/`, v6, '::1 (loopback)'],
      [`http://[::ffff:127.0.0.1]:${v4.port}/`, v4, '::ffff:7f00:1 (loopback)'],
    ] as const;

  it('refuses loopback targets in every spelling, before any request reaches them', async () => {
    for (const [url, server, expected] of targets()) {
      const outcome = await strict.execute(post(url), {}, makeContext());
      expect(outcome, url).toMatchObject({ ok: false, failure: 'refused', httpStatus: null });
      expect(outcome.error, url).toContain(expected);
      expect(outcome.error, url).toContain('set BELFRY_ALLOW_PRIVATE_TARGETS=1 for development');
      expect(server.requests, url).toHaveLength(0);
    }
  });

  it('delivers to the same targets when private targets are allowed', async () => {
    for (const [url, server] of targets()) {
      const before = server.requests.length;
      const outcome = await permissive.execute(post(url), {}, makeContext());
      expect(outcome, url).toMatchObject({ ok: true, httpStatus: 200, responseSnippet: 'reached' });
      expect(server.requests.length, url).toBe(before + 1);
    }
  });

  it('refuses a name whose resolver answer is internal, even with a live pool for the IP', async () => {
    const rebinding = new HttpHandler({
      allowPrivateTargets: false,
      resolver: async () => [{ address: '127.0.0.1', family: 4 }],
    });
    const outcome = await rebinding.execute(post(`http://hooks.example.com:${v4.port}/`), {}, makeContext());
    await rebinding.close();
    expect(outcome).toMatchObject({ ok: false, failure: 'refused' });
    expect(outcome.error).toContain('target hooks.example.com does not resolve to a public address');
    expect(outcome.error).not.toContain('127.0.0.1');
  });
});
