// `npm start`: the whole of Belfry on one machine. Starts (or reuses) the database, applies
// migrations, seeds a demo tenant on first run, builds the dashboard when its sources changed,
// then runs the web app and one engine node under a supervisor (restarted with backoff if they
// exit unexpectedly) until Ctrl-C or SIGTERM, and stops them all, the embedded database last.
//
// Every way a start can fail ends in one sentence on stderr and exit code 1 — after stopping
// whatever was started already (a build, an embedded PostgreSQL): never a stack trace.
import { randomBytes } from 'node:crypto';
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { Keyring, parseKeyList } from '@belfry/core';
import {
  createPool,
  createPrisma,
  createQueueClient,
  type DatabaseTarget,
  explainStartupError,
  findRepoRoot,
  localSecret,
  migrate,
  readDbEnv,
  requireDirectConnection,
  resolveDatabase,
  StartupError,
} from '@belfry/db';
import { seedDemoTenant, systemClock } from '@belfry/api';
import { childEnv, readScriptsEnv } from './lib/env';
import { Supervisor } from './lib/supervisor';
import { ENGINE_NODE_FLAGS } from '../apps/engine/src/node-flags';
import { webBuildIsStale } from './lib/web-build';

const say = (m: string) => process.stdout.write(`[belfry] ${m}\n`);
const root = findRepoRoot();

/** Thrown out of the start sequence when a stop was asked for while starting. */
class Stopped extends Error {}

let target: DatabaseTarget | undefined;
let build: ChildProcess | undefined;
let supervisor: Supervisor | undefined;
let stopping = false;
let starting: Promise<void> = Promise.resolve();

function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, () => server.close(() => resolve(true)));
  });
}

function checkpoint(): void {
  if (stopping) throw new Stopped();
}

function run(cmd: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { ...options, stdio: 'inherit', detached: true });
    build = child;
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      build = undefined;
      resolve(code ?? (signal ? 128 : 1));
    });
  });
}

async function startAll(): Promise<void> {
  const started = Date.now();
  const env = readScriptsEnv();
  // Fail fast, before anything slow: the dashboard's port must be free.
  if (!(await portIsFree(env.PORT))) {
    throw new StartupError(`Port ${env.PORT} (PORT) is in use: stop what holds it, or set PORT to a free port.`);
  }
  target = await resolveDatabase(env.db, say);
  checkpoint();
  say(
    target.embedded
      ? `embedded PostgreSQL on 127.0.0.1:${target.embedded.port} (data in .belfry/pg)`
      : target.directConfigured
        ? 'using DATABASE_URL (and BELFRY_DIRECT_DATABASE_URL for sessions)'
        : 'using DATABASE_URL',
  );
  // A server that dies under us (killed, crashed) is started again; web and engine ride it out.
  target.embedded?.keepRunning({ log: say });
  await requireDirectConnection(target);
  const { applied, partitions } = await migrate(target.directUrl, { partitions: env.db.BELFRY_PARTITIONS });
  if (applied.length) say(`applied migrations: ${applied.join(', ')}`);
  checkpoint();

  const encryptionKey = localSecret('encryption-key', env.BELFRY_ENCRYPTION_KEY);
  const nextAuthSecret = localSecret('nextauth', env.NEXTAUTH_SECRET);
  const prisma = createPrisma(target.url, { max: 2 });
  const pool = createPool(target.url, { max: 2, name: 'belfry-start' });
  const queue = await createQueueClient(target.url, { max: 2 });
  let seeded: Awaited<ReturnType<typeof seedDemoTenant>>;
  try {
    seeded = await seedDemoTenant(
      {
        prisma,
        pool,
        queue,
        clock: systemClock,
        log: console,
        keyring: Keyring.from(encryptionKey, parseKeyList(env.BELFRY_DECRYPTION_KEYS)),
        partitions,
      },
      randomBytes(9).toString('base64url'),
    );
  } finally {
    await queue.stop({ graceful: false }).catch(() => {});
    await prisma.$disconnect().catch(() => {});
    await pool.end().catch(() => {});
  }
  checkpoint();

  const inherited = childEnv({
    DATABASE_URL: target.url,
    ...(target.directConfigured ? { BELFRY_DIRECT_DATABASE_URL: target.directUrl } : {}),
    BELFRY_ENCRYPTION_KEY: encryptionKey,
    NEXTAUTH_SECRET: nextAuthSecret,
    NEXTAUTH_URL: env.NEXTAUTH_URL ?? `http://localhost:${env.PORT}`,
    PORT: String(env.PORT),
  });

  if (webBuildIsStale(root)) {
    say('building the dashboard (first start or changed sources) ...');
    const code = await run(join(root, 'node_modules/.bin/next'), ['build'], {
      cwd: join(root, 'apps/web'),
      env: { ...inherited, NEXT_TELEMETRY_DISABLED: '1' },
    });
    checkpoint();
    if (code !== 0) throw new StartupError(`Building the dashboard failed (next build exit code ${code}); see above.`);
  }

  supervisor = new Supervisor({ say });
  supervisor.on('give-up', () => void shutdown(1));
  supervisor.add({
    name: 'web',
    // Next's handler on our own server, which knows each client's address (scripts/web-server.ts).
    command: process.execPath,
    args: ['--import', 'tsx', join(root, 'scripts/web-server.ts')],
    cwd: join(root, 'apps/web'),
    env: { ...inherited, NODE_ENV: 'production', NEXT_TELEMETRY_DISABLED: '1' },
  });
  if (env.BELFRY_ROLES.trim() !== 'none') {
    supervisor.add({
      name: 'engine',
      // node with tsx's loader (not the tsx CLI, which would put a process between us and it)
      command: process.execPath,
      args: [...ENGINE_NODE_FLAGS, '--import', 'tsx', 'apps/engine/src/main.ts'],
      cwd: root,
      env: { ...inherited, BELFRY_ROLES: env.BELFRY_ROLES },
    });
  }

  say(
    `dashboard and API: http://localhost:${env.PORT} (ready in ${((Date.now() - started) / 1000).toFixed(1)} s + web boot)`,
  );
  if (seeded.created) {
    say('first run: seeded a demo tenant');
    say(`  login:   ${seeded.email}`);
    say(`  password: ${seeded.password}`);
    say(`  API key: ${seeded.apiKey}`);
    say(`  try:     curl -H "Authorization: Bearer ${seeded.apiKey}" http://localhost:${env.PORT}/api/v1/jobs`);
  }
}

/** Stops everything that was started, the embedded database last, and exits. */
async function shutdown(code: number, why = 'stopping ...'): Promise<void> {
  if (stopping) return;
  stopping = true;
  say(why);
  setTimeout(() => {
    say('shutdown took too long; exiting');
    process.exit(1);
  }, 90_000).unref();
  if (build?.pid) {
    try {
      process.kill(-build.pid, 'SIGTERM');
    } catch {}
  }
  await starting.catch(() => {});
  await supervisor?.stop();
  await target?.release().catch((err: Error) => say(`could not stop the embedded PostgreSQL: ${err.message}`));
  say('stopped');
  process.exit(code);
}

// Registered before anything starts: a stop asked for while starting is honoured too. SIGTERM
// (docker stop, systemd) and SIGHUP (terminal closed) stop everything exactly like Ctrl-C.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => void shutdown(0));
// A parent that goes away without passing a signal on (npm killed, a shell gone) must not
// leave us running unattended.
const parent = process.ppid;
setInterval(() => {
  if (process.ppid !== parent) void shutdown(0, 'the process that started npm start is gone; stopping ...');
}, 1_000).unref();

starting = startAll();
starting.catch(async (err: unknown) => {
  if (err instanceof Stopped) return; // shutdown() is under way
  let url: string | undefined;
  try {
    url = readDbEnv().DATABASE_URL;
  } catch {}
  process.stderr.write(`[belfry] failed to start: ${explainStartupError(err, url)}\n`);
  if (
    !(err instanceof StartupError) &&
    explainStartupError(err, url) === (err as Error)?.message &&
    err instanceof Error
  ) {
    process.stderr.write(`${err.stack ?? ''}\n`);
  }
  await shutdown(1, 'stopping what was started ...');
});
