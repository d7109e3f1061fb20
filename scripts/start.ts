// `npm start`: the whole of Belfry on one machine. Starts (or reuses) the database, applies
// migrations, seeds a demo tenant on first run, builds the dashboard when its sources changed,
// then runs the web app and one engine node until Ctrl-C, and stops them all, the embedded
// database last.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { deriveEncryptionKey } from '@belfry/core';
import {
  createPool,
  createPrisma,
  createQueueClient,
  findRepoRoot,
  localSecret,
  migrate,
  readDbEnv,
  resolveDatabase,
} from '@belfry/db';
import { seedDemoTenant, systemClock } from '@belfry/api';
import { randomBytes } from 'node:crypto';
import { z } from 'zod';

const root = findRepoRoot();
const env = z
  .object({
    PORT: z.coerce.number().int().min(1).max(65535).default(3000),
    BELFRY_ROLES: z.string().default('scheduler,worker'),
  })
  .parse(process.env);
const dbEnv = readDbEnv();
const say = (m: string) => process.stdout.write(`[belfry] ${m}\n`);

function newestMtime(dir: string): number {
  let newest = 0;
  if (!existsSync(dir)) return newest;
  if (!statSync(dir).isDirectory()) return statSync(dir).mtimeMs;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === '.next' || entry.name === 'generated') continue;
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

function webBuildIsStale(): boolean {
  const buildId = join(root, 'apps/web/.next/BUILD_ID');
  if (!existsSync(buildId)) return true;
  const built = statSync(buildId).mtimeMs;
  const sources = [
    'apps/web/src',
    'apps/web/next.config.ts',
    'packages/api/src',
    'packages/core/src',
    'packages/db/src',
  ];
  return sources.some(
    (s) => newestMtime(join(root, s)) > built || (existsSync(join(root, s)) && statSync(join(root, s)).mtimeMs > built),
  );
}

function run(cmd: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { ...options, stdio: 'inherit' });
    child.on('exit', (code) => resolve(code ?? 1));
  });
}

async function main(): Promise<void> {
  const started = Date.now();
  const target = await resolveDatabase(dbEnv, say);
  say(
    target.embedded
      ? `embedded PostgreSQL on 127.0.0.1:${target.embedded.port} (data in .belfry/pg)`
      : 'using DATABASE_URL',
  );
  const { applied, partitions } = await migrate(target.url, { partitions: dbEnv.BELFRY_PARTITIONS });
  if (applied.length) say(`applied migrations: ${applied.join(', ')}`);

  const encryptionKey = localSecret('encryption-key', process.env.BELFRY_ENCRYPTION_KEY);
  const nextAuthSecret = localSecret('nextauth', process.env.NEXTAUTH_SECRET);
  const prisma = createPrisma(target.url, { max: 2 });
  const pool = createPool(target.url, { max: 2 });
  const password = randomBytes(9).toString('base64url');
  const queue = await createQueueClient(target.url, { max: 2 });
  const seeded = await seedDemoTenant(
    {
      prisma,
      pool,
      queue,
      clock: systemClock,
      log: console,
      encryptionKey: deriveEncryptionKey(encryptionKey),
      partitions,
    },
    password,
  );
  await queue.stop({ graceful: false });
  await prisma.$disconnect();
  await pool.end();

  const childEnv: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: target.url,
    BELFRY_ENCRYPTION_KEY: encryptionKey,
    NEXTAUTH_SECRET: nextAuthSecret,
    NEXTAUTH_URL: process.env.NEXTAUTH_URL ?? `http://localhost:${env.PORT}`,
    PORT: String(env.PORT),
  };

  if (webBuildIsStale()) {
    say('building the dashboard (first start or changed sources) ...');
    const code = await run('npx', ['next', 'build'], {
      cwd: join(root, 'apps/web'),
      env: { ...childEnv, NEXT_TELEMETRY_DISABLED: '1' },
    });
    if (code !== 0) throw new Error(`next build failed with exit code ${code}`);
  }

  const children: ChildProcess[] = [];
  let shuttingDown = false;
  const spawnChild = (name: string, cmd: string, args: string[], cwd: string, extra: NodeJS.ProcessEnv = {}) => {
    const child = spawn(cmd, args, { cwd, env: { ...childEnv, ...extra }, stdio: 'inherit' });
    child.on('exit', (code, signal) => {
      if (!shuttingDown) {
        say(`${name} exited unexpectedly (${signal ?? code}); stopping everything`);
        void shutdown(1);
      }
    });
    children.push(child);
    return child;
  };

  spawnChild('web', join(root, 'node_modules/.bin/next'), ['start', '-p', String(env.PORT)], join(root, 'apps/web'), {
    NEXT_TELEMETRY_DISABLED: '1',
  });
  if (env.BELFRY_ROLES.trim() !== 'none') {
    spawnChild('engine', process.execPath, ['--import', 'tsx', 'apps/engine/src/main.ts'], root, {
      BELFRY_ROLES: env.BELFRY_ROLES,
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

  async function shutdown(code: number): Promise<void> {
    if (shuttingDown) return;
    shuttingDown = true;
    say('stopping ...');
    setTimeout(() => {
      say('shutdown took too long; exiting');
      process.exit(1);
    }, 90_000);
    const exits = children.map(
      (c) =>
        new Promise<void>((resolve) => {
          if (c.exitCode !== null || c.signalCode !== null) return resolve();
          c.once('exit', () => resolve());
          c.kill('SIGTERM');
          setTimeout(() => c.kill('SIGKILL'), 40_000).unref();
        }),
    );
    await Promise.all(exits);
    await target.release();
    say('stopped');
    process.exit(code);
  }
  process.on('SIGINT', () => void shutdown(0));
  process.on('SIGTERM', () => void shutdown(0));
}

main().catch((err) => {
  process.stderr.write(`[belfry] failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
