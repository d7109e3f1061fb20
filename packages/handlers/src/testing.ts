// Test support for the handler tests: a real node:http server on a loopback port that
// records what it received, and a HandlerContext factory. Loopback only, by design: the
// handler tests never contact any other address.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import net, { type Server, type Socket } from 'node:net';
import { generateSigningSecret } from '@belfry/core';
import type { HandlerContext } from './types';

export interface ReceivedRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
  socket: Socket;
  remotePort: number;
}

export interface TestServer {
  /** base URL, e.g. http://127.0.0.1:40123 or http://[::1]:40123 */
  url: string;
  port: number;
  requests: ReceivedRequest[];
  close(): Promise<void>;
}

export type Respond = (req: IncomingMessage, res: ServerResponse, received: ReceivedRequest) => void;

export async function startServer(respond: Respond, host = '127.0.0.1'): Promise<TestServer> {
  const requests: ReceivedRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const received: ReceivedRequest = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        socket: req.socket,
        remotePort: req.socket.remotePort ?? -1,
      };
      requests.push(received);
      respond(req, res, received);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections(); // a never-answering handler would keep close() waiting
        server.close(() => resolve());
      }),
  };
}

/** A port nothing listens on: bind, note the port, close. */
export async function closedPort(): Promise<number> {
  const s = await startServer(() => {});
  await s.close();
  return s.port;
}

export const SECRET = generateSigningSecret();

export function makeContext(overrides: Partial<HandlerContext> = {}): HandlerContext {
  return {
    runId: 'run_01JH8Z3K5W6X7Y8Z9A0B1C2D3E',
    jobId: 'job_01JH8Z3K5W6X7Y8Z9A0B1C2D3F',
    tenantId: 'ten_01JH8Z3K5W6X7Y8Z9A0B1C2D3G',
    attempt: 1,
    scheduledTime: new Date('2025-03-30T01:30:00.000Z'),
    timeoutMs: 5_000,
    signal: new AbortController().signal,
    signingSecrets: [SECRET],
    now: () => new Date(),
    ...overrides,
  };
}

/**
 * A loopback TCP proxy to `targetPort` (a real broker) that a test starts and stops: a broker
 * that is down (nothing listens on the port), then up again on the same port, or a proxy that
 * accepts and never answers (`silent`).
 */
export interface TcpProxy {
  port: number;
  /** starts listening (again) on `port` */
  start(): Promise<void>;
  /** stops listening and cuts every proxied connection */
  stop(): Promise<void>;
  /** connections accepted so far */
  accepted: number;
}

export async function tcpProxy(targetPort: number, options: { silent?: boolean } = {}): Promise<TcpProxy> {
  const port = await closedPort();
  const sockets = new Set<Socket>();
  let server: Server | null = null;
  const proxy: TcpProxy = {
    port,
    accepted: 0,
    async start() {
      server = net.createServer((client) => {
        proxy.accepted++;
        sockets.add(client);
        client.on('close', () => sockets.delete(client));
        client.on('error', () => {});
        if (options.silent) return;
        const upstream = net.connect(targetPort, '127.0.0.1');
        sockets.add(upstream);
        upstream.on('close', () => sockets.delete(upstream));
        upstream.on('error', () => client.destroy());
        client.on('close', () => upstream.destroy());
        upstream.on('close', () => client.destroy());
        client.pipe(upstream).pipe(client);
      });
      await new Promise<void>((resolve) => server!.listen(port, '127.0.0.1', resolve));
    },
    async stop() {
      for (const s of sockets) s.destroy();
      sockets.clear();
      const s = server;
      server = null;
      if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
    },
  };
  return proxy;
}

/** A private nats-server (the machine's binary) with JetStream, on a loopback port, that a test starts and stops; TLS required with `tls`. */
export interface NatsServer {
  port: number;
  url: string;
  stop(): Promise<void>;
}

export async function startNatsServer(
  options: { port?: number; user?: string; pass?: string; tls?: { certFile: string; keyFile: string } } = {},
): Promise<NatsServer> {
  const { spawn } = await import('node:child_process');
  const { mkdtemp, rm } = await import('node:fs/promises');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const port = options.port ?? (await closedPort());
  const dir = await mkdtemp(join(tmpdir(), 'belfry-nats-'));
  const args = ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', dir];
  if (options.user) args.push('--user', options.user, '--pass', options.pass ?? '');
  if (options.tls) args.push('--tls', '--tlscert', options.tls.certFile, '--tlskey', options.tls.keyFile);
  const child = spawn('nats-server', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // Ready once it accepts connections (it logs "Server is ready" only at higher verbosity).
  for (let i = 0; ; i++) {
    const up = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => {
        socket.destroy();
        resolve(true);
      });
      socket.on('error', () => resolve(false));
    });
    if (up) break;
    if (child.exitCode !== null || i > 200) {
      child.kill('SIGKILL');
      await rm(dir, { recursive: true, force: true });
      throw new Error(`nats-server did not start: ${stderr}`);
    }
    await new Promise((r) => setTimeout(r, 25));
  }
  return {
    port,
    url: `${options.tls ? 'tls' : 'nats'}://127.0.0.1:${port}`,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
      await rm(dir, { recursive: true, force: true });
    },
  };
}
