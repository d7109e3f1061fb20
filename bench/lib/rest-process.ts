// Child process: Belfry's REST API (the same handler Next mounts at /api/v1) on a node:http
// server, over DATABASE_URL, with the web process's pull-queue wake-ups. First line on stdout
// is {"port":N}. Exits on SIGTERM or when the bench goes away (stdin closes).
import { createServer } from 'node:http';
import { createRestHandler, type Logger, type ServiceDeps } from '@belfry/api';
import { deriveEncryptionKey } from '@belfry/core';
import { createPool, createPrisma, createQueueClient, PullWakeups } from '@belfry/db';

const url = process.env.DATABASE_URL as string;
const silent: Logger = { info() {}, warn() {}, error: (o) => process.stderr.write(`[rest] ${JSON.stringify(o)}\n`) };
const pool = createPool(url, { max: 20, name: 'belfry-bench-rest' });
const prisma = createPrisma(url, { max: 4 });
const queue = await createQueueClient(url, { max: 5 });
const pullWakeups = new PullWakeups({ url });
await pullWakeups.start();
const { rows } = await pool.query<{ value: string }>(`SELECT value FROM belfry_settings WHERE key = 'partitions'`);
const deps: ServiceDeps = {
  prisma,
  pool,
  queue,
  clock: { now: () => new Date() },
  log: silent,
  encryptionKey: deriveEncryptionKey(process.env.BELFRY_ENCRYPTION_KEY as string),
  partitions: Number(rows[0]?.value ?? 1024),
  pullWakeups,
};
const handle = createRestHandler(async () => deps, { log: silent });

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const body = Buffer.concat(chunks);
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers.set(k, v);
    handle(
      new Request(`http://127.0.0.1${req.url ?? '/'}`, {
        method: req.method ?? 'GET',
        headers,
        body: body.length ? new Uint8Array(body) : undefined,
      }),
    )
      .then(async (response) => {
        res.writeHead(response.status, Object.fromEntries(response.headers));
        res.end(Buffer.from(await response.arrayBuffer()));
      })
      .catch((err: unknown) => res.writeHead(500).end(String(err)));
  });
});
server.keepAliveTimeout = 60_000;
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const address = server.address();
process.stdout.write(`${JSON.stringify({ port: typeof address === 'object' && address ? address.port : 0 })}\n`);
const stop = () => process.exit(0);
process.on('SIGTERM', stop);
process.stdin.on('end', stop);
process.stdin.resume();
