// A real Belfry API for the CLI's and the client's end-to-end tests: the REST handler from @belfry/api on a
// node:http server on 127.0.0.1, over a cloned test database with real Prisma and pg-boss.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { ChannelSenders, dashboardLinks } from '@belfry/alerts';
import { Keyring } from '@belfry/core';
import { createPrisma, createQueueClient, PullWakeups } from '@belfry/db';
import { ImageAllowList } from '@belfry/handlers/schemas';
import { createRestHandler, createTenant, type Logger, type ServiceDeps } from '@belfry/api';
import { createTestDatabase, type TestDatabase } from './db';

export const ENCRYPTION_KEY_MATERIAL = 'cli-e2e-encryption-key-material';

const silent: Logger = { info() {}, warn() {}, error() {} };

export interface TestServer {
  url: string;
  db: TestDatabase;
  deps: ServiceDeps;
  createTenant(name: string): Promise<{ tenantId: string; apiKey: string }>;
  close(): Promise<void>;
}

async function toRequest(req: IncomingMessage, origin: string, signal: AbortSignal): Promise<Request> {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    else if (value !== undefined) headers.set(name, value);
  }
  const method = req.method ?? 'GET';
  let body: Buffer | undefined;
  if (method !== 'GET' && method !== 'HEAD') {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    body = Buffer.concat(chunks);
  }
  return new Request(new URL(req.url ?? '/', origin), {
    method,
    headers,
    body: body?.length ? new Uint8Array(body) : undefined,
    signal,
  });
}

async function send(res: ServerResponse, response: Response): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  res.writeHead(response.status, headers);
  res.end(Buffer.from(await response.arrayBuffer()));
}

export interface TestServerOptions {
  /** BELFRY_CONTAINER_IMAGES of this server; unset: container targets are refused */
  containerImages?: string;
}

export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const db = await createTestDatabase();
  const prisma = createPrisma(db.url, { max: 4 });
  const queue = await createQueueClient(db.url, { max: 4 });
  // No safety poll to speak of: a long-polling claim in these tests wakes by notification or not at all.
  const pullWakeups = new PullWakeups({ url: db.url, pollMs: 60_000 });
  await pullWakeups.start();
  const deps: ServiceDeps = {
    prisma,
    pool: db.pool,
    queue,
    clock: { now: () => new Date() },
    log: silent,
    keyring: Keyring.from(ENCRYPTION_KEY_MATERIAL),
    partitions: db.partitions,
    alertSender: new ChannelSenders({ links: dashboardLinks('http://localhost:3000'), allowPrivateTargets: true }),
    containerImages: ImageAllowList.parse(options.containerImages),
    pullWakeups,
  };
  const handle = createRestHandler(async () => deps, { log: silent });
  let origin = '';
  const server: Server = createServer((req, res) => {
    // A client that hangs up aborts the request (a long-polling claim stops waiting).
    const aborted = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) aborted.abort();
    });
    toRequest(req, origin, aborted.signal)
      .then(handle)
      .then((response) => send(res, response))
      .catch((err: unknown) => {
        res.writeHead(500, { 'content-type': 'text/plain' }).end(String(err));
      });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  origin = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  return {
    url: origin,
    db,
    deps,
    async createTenant(name) {
      const created = await createTenant(deps, { name });
      return { tenantId: created.tenantId, apiKey: created.apiKey as string };
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await pullWakeups.stop();
      await queue.stop({ graceful: false, close: true });
      await deps.alertSender?.close?.();
      await prisma.$disconnect();
      await db.destroy();
    },
  };
}
