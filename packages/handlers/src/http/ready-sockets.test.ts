// Sockets opened ahead for prepared requests (ready-sockets.ts), through a real HttpHandler and a
// loopback server that counts its connections: a prepared request finds its socket open, a burst
// gets one per request up to the per-origin cap and a steady load none beyond its pool's, unused
// ones are closed, one the server closed is not used, and the SSRF guard still decides.
import { createServer, type Server } from 'node:http';
import net, { type AddressInfo, type Socket } from 'node:net';
import type { buildConnector } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { HttpHandler, type HttpTarget } from './http';
import { ReadySockets } from './ready-sockets';
import { makeContext } from '../testing';

interface CountingServer {
  url: string;
  port: number;
  /** connections accepted, in order */
  connections: Socket[];
  requests: number;
  /** destroy the next `n` connections as soon as they are accepted */
  dropNext(n: number): void;
  close(): Promise<void>;
}

async function countingServer(): Promise<CountingServer> {
  let drop = 0;
  const state = { connections: [] as Socket[], requests: 0 };
  const server: Server = createServer((req, res) => {
    state.requests++;
    req.resume();
    req.on('end', () => res.end('ok'));
  });
  server.on('connection', (socket: Socket) => {
    state.connections.push(socket);
    if (drop > 0) {
      drop--;
      socket.destroy();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    get connections() {
      return state.connections;
    },
    get requests() {
      return state.requests;
    },
    dropNext: (n) => {
      drop = n;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const handlers: HttpHandler[] = [];
const servers: CountingServer[] = [];
afterEach(async () => {
  await Promise.all(handlers.splice(0).map((h) => h.close()));
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function setUp(options: Partial<ConstructorParameters<typeof HttpHandler>[0]> = {}) {
  const server = await countingServer();
  const handler = new HttpHandler({ allowPrivateTargets: true, ...options });
  servers.push(server);
  handlers.push(handler);
  const target: HttpTarget = { type: 'http', url: `${server.url}/hook`, method: 'POST' };
  return { server, handler, target };
}

async function until(condition: () => boolean, what: string): Promise<void> {
  for (let waited = 0; !condition(); waited += 5) {
    if (waited > 2_000) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

const soon = () => new Date(Date.now() + 200);

describe('sockets opened ahead of prepared requests', () => {
  it('a prepared request finds its socket open: the connection came before the request', async () => {
    const { server, handler, target } = await setUp();
    const ctx = makeContext();
    const prepared = handler.prepare(target, { n: 1 }, ctx, soon());
    await until(() => server.connections.length === 1, 'the connection opened ahead');
    expect(server.requests).toBe(0);
    expect(await handler.execute(target, { n: 1 }, { ...ctx, prepared })).toMatchObject({ ok: true });
    expect(server.requests).toBe(1);
    expect(server.connections).toHaveLength(1);
  });

  it('a burst gets one socket per request up to the per-origin cap; a load its pool covers opens none', async () => {
    const { server, handler, target } = await setUp({ connectionsPerOrigin: 3 });
    const ctx = (i: number) => makeContext({ runId: `run_burst${i}`, tenantId: 'ten_burst' });
    const prepared = [0, 1, 2, 3, 4].map((i) => handler.prepare(target, { i }, ctx(i), soon()));
    await until(() => server.connections.length === 3, 'three connections');
    const outcomes = await Promise.all(
      prepared.map((p, i) => handler.execute(target, { i }, { ...ctx(i), prepared: p })),
    );
    expect(outcomes.every((o) => o.ok)).toBe(true);
    expect(server.requests).toBe(5);
    expect(server.connections).toHaveLength(3); // the cap, not one per request
    // The next request of the tenant finds its pool's kept-alive sockets: nothing more is opened.
    const next = handler.prepare(target, { i: 5 }, ctx(5), soon());
    expect(await handler.execute(target, { i: 5 }, { ...ctx(5), prepared: next })).toMatchObject({ ok: true });
    expect(server.connections).toHaveLength(3);
  });

  it('a target named by DNS finds its socket too (the key undici connects with), and only one', async () => {
    const { server, handler } = await setUp({ resolver: async () => [{ address: '127.0.0.1', family: 4 }] });
    const target: HttpTarget = { type: 'http', url: `http://hooks.example.com:${server.port}/`, method: 'POST' };
    const ctx = makeContext();
    const prepared = handler.prepare(target, {}, ctx, soon());
    await until(() => server.connections.length === 1, 'the connection opened ahead');
    expect(await handler.execute(target, {}, { ...ctx, prepared })).toMatchObject({ ok: true });
    expect(server.requests).toBe(1);
    expect(server.connections).toHaveLength(1);
  });

  it('each tenant has its own: one tenant preparing opens nothing for another', async () => {
    const { server, handler, target } = await setUp();
    handler.prepare(target, {}, makeContext({ tenantId: 'ten_a' }), soon());
    handler.prepare(target, {}, makeContext({ tenantId: 'ten_b', runId: 'run_b' }), soon());
    await until(() => server.connections.length === 2, 'a connection per tenant');
    expect(server.requests).toBe(0);
  });

  it('a socket nobody takes is closed after the keep-alive time', async () => {
    const { server, handler, target } = await setUp({ keepAliveTimeoutMs: 150 });
    handler.prepare(target, {}, makeContext(), soon());
    await until(() => server.connections.length === 1, 'the connection opened ahead');
    await until(() => server.connections[0]!.destroyed, 'the unused socket to be closed');
    expect(server.requests).toBe(0);
  });

  it('a socket the server closed while it waited is not used: the request connects anew', async () => {
    const { server, handler, target } = await setUp();
    server.dropNext(1);
    const ctx = makeContext();
    const prepared = handler.prepare(target, {}, ctx, soon());
    await until(() => server.connections.length === 1, 'the connection opened ahead');
    await new Promise((r) => setTimeout(r, 20));
    expect(await handler.execute(target, {}, { ...ctx, prepared })).toMatchObject({ ok: true, httpStatus: 200 });
    expect(server.connections).toHaveLength(2);
  });

  it('the SSRF guard still decides: a name resolving to loopback gets no socket and its request is refused', async () => {
    const { server, handler } = await setUp({
      allowPrivateTargets: false,
      resolver: async () => [{ address: '127.0.0.1', family: 4 }],
    });
    const target: HttpTarget = { type: 'http', url: `http://hooks.example.com:${server.port}/`, method: 'POST' };
    const ctx = makeContext();
    const prepared = handler.prepare(target, {}, ctx, soon());
    expect(prepared).toBeDefined(); // the name passes the static check; its address is checked on connect
    const outcome = await handler.execute(target, {}, { ...ctx, prepared });
    expect(outcome).toMatchObject({ ok: false, failure: 'refused' });
    expect(server.connections).toHaveLength(0);
  });

  it('forgets the requests never sent (cancelled runs) once past their time', async () => {
    const refused = new Error('refused');
    const ready = new ReadySockets((_opts, callback) => process.nextTick(() => callback(refused, null)), {
      perOrigin: 4,
      idleMs: 1_000,
    });
    const now = Date.now();
    ready.expect('ten_gone', { protocol: 'http:', hostname: '127.0.0.1', port: '9' }, now + 100, now);
    await new Promise((r) => process.nextTick(r)); // the connect was refused
    expect(ready.tenantCount).toBe(1);
    ready.sweep(now + 1_000);
    expect(ready.tenantCount).toBe(1); // still about to start
    ready.sweep(now + 100 + 2_001);
    expect(ready.tenantCount).toBe(0);
    ready.close();
  });

  it('an https origin gets one socket ahead until it is known to speak HTTP/1.1; an h2 one stays at one', async () => {
    const server = await countingServer();
    servers.push(server);
    for (const alpn of ['h2', false] as const) {
      // A connector that connects to the loopback server and reports what ALPN chose.
      const connect: buildConnector.connector = (_opts, callback) => {
        const socket = net.connect(server.port, '127.0.0.1', () => {
          Object.defineProperty(socket, 'alpnProtocol', { value: alpn });
          callback(null, socket);
        });
        socket.on('error', (err) => callback(err, null));
      };
      const ready = new ReadySockets(connect, { perOrigin: 4, idleMs: 1_000 });
      const tenant = `ten_${alpn}`;
      const origin = { protocol: 'https:', hostname: 'hooks.example.com', port: '' };
      const before = server.connections.length;
      const now = Date.now();
      for (let i = 0; i < 6; i++) ready.expect(tenant, origin, now + 200, now);
      await until(() => server.connections.length === before + 1, 'the first socket');
      // Its protocol known, the next expected requests open more only for HTTP/1.1.
      await until(() => ready.openingCount === 0, 'the first socket to connect');
      ready.expect(tenant, origin, now + 200, now);
      await until(() => ready.openingCount === 0, 'the opens to settle');
      // Connected on our side; the server's accepts may still be in the event loop (a CI run under
      // load once counted 2 of the 4). Wait for them, then a moment for any extra one.
      const expected = alpn === 'h2' ? 1 : 4;
      await until(() => server.connections.length - before >= expected, 'the server to accept them');
      await new Promise((r) => setTimeout(r, 50));
      expect(server.connections.length - before).toBe(expected);
      ready.close();
    }
  });
});
