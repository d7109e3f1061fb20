// Child process: Belfry's REST API (the handler the web app mounts under /api/v1) on a
// node:http server on 127.0.0.1, over DATABASE_URL, as a web node serves it minus Next's
// routing. First line on stdout is {"port":N}. Exits on SIGTERM or when the bench goes away.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createRestHandler, type Logger, prepareLeaseTokens, type ServiceDeps } from '@belfry/api';
import { Keyring } from '@belfry/core';
import { createPool, createPrisma, createQueueClient, PullWakeups } from '@belfry/db';
import { benchEnv } from './env';

const url = benchEnv.DATABASE_URL as string;
const silent: Logger = { info() {}, warn() {}, error: (o: unknown, m?: string) => console.error(m, o) };
const pool = createPool(url, { max: 10, name: 'belfry-bench-api' });
// As the web app: long-polling pull-queue claims wake on NOTIFY.
const pullWakeups = new PullWakeups({ url });
await pullWakeups.start();
const deps: ServiceDeps = {
  prisma: createPrisma(url, { max: 2 }),
  pool,
  queue: await createQueueClient(url, { max: 2 }),
  clock: { now: () => new Date() },
  log: silent,
  keyring: Keyring.from('bench-encryption-key-material'),
  partitions: Number(
    (await pool.query<{ value: string }>(`SELECT value FROM belfry_settings WHERE key = 'partitions'`)).rows[0]?.value,
  ),
  pullWakeups,
};
// As a web node that has served claims before: the measured window holds no one-time derivation.
prepareLeaseTokens(deps.keyring);
const handle = createRestHandler(async () => deps, { log: silent });

async function toRequest(req: IncomingMessage, origin: string): Promise<Request> {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (typeof value === 'string') headers.set(name, value);
  }
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const body = Buffer.concat(chunks);
  return new Request(new URL(req.url ?? '/', origin), {
    method: req.method ?? 'GET',
    headers,
    body: body.length ? new Uint8Array(body) : undefined,
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

let origin = '';
const server = createServer((req, res) => {
  toRequest(req, origin)
    .then(handle)
    .then((response) => send(res, response))
    .catch((err: unknown) => res.writeHead(500).end(String(err)));
});
// Longer than the clients' idle keep-alive, so a client never reuses a socket the server is closing.
server.keepAliveTimeout = 65_000;
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const address = server.address();
const port = typeof address === 'object' && address ? address.port : 0;
origin = `http://127.0.0.1:${port}`;
process.stdout.write(`${JSON.stringify({ port })}\n`);
const stop = () => {
  server.close();
  process.exit(0);
};
process.on('SIGTERM', stop);
// stdin is a pipe from the bench: it closes when the bench dies, however it dies.
process.stdin.on('end', stop);
process.stdin.resume();
