// `npm run dev`: Belfry for working on Belfry. Like `npm start` it starts (or reuses) the
// database (embedded unless DATABASE_URL is set), applies migrations and seeds a demo tenant
// on the first run; then it regenerates the REST client's types and runs `next dev` (hot
// reload of the dashboard and the API) and one engine node under `node --watch` (restarted
// when a file it loads changes), under the same supervisor as `npm start` (a child that
// crashes is restarted with backoff). Ctrl-C or SIGTERM stops all of it, the embedded
// database last.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { seedDemoTenant, systemClock } from '@belfry/api';
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
} from '@belfry/db';
import { childEnv, readScriptsEnv } from './lib/env';
import { Supervisor } from './lib/supervisor';

const root = findRepoRoot();
const say = (m: string) => process.stdout.write(`[belfry dev] ${m}\n`);

async function seed(url: string, partitions: number, encryptionKey: string, decryptionKeys: string | undefined) {
  const prisma = createPrisma(url, { max: 2 });
  const pool = createPool(url, { max: 2 });
  const queue = await createQueueClient(url, { max: 2 });
  try {
    const deps = {
      prisma,
      pool,
      queue,
      clock: systemClock,
      log: console,
      keyring: Keyring.from(encryptionKey, parseKeyList(decryptionKeys)),
      partitions,
    };
    return await seedDemoTenant(deps, randomBytes(9).toString('base64url'));
  } finally {
    await queue.stop({ graceful: false });
    await prisma.$disconnect();
    await pool.end();
  }
}

let database: DatabaseTarget | undefined;
let supervisor: Supervisor | undefined;
let stopping = false;

async function stop(code: number): Promise<void> {
  if (stopping) return;
  stopping = true;
  say('stopping ...');
  await supervisor?.stop();
  await database?.release().catch(() => {});
  say('stopped');
  process.exit(code);
}

async function main(): Promise<void> {
  const env = readScriptsEnv();
  database = await resolveDatabase(env.db, say);
  say(database.embedded ? `embedded PostgreSQL on 127.0.0.1:${database.embedded.port}` : 'using DATABASE_URL');
  // A server that dies under us (killed, crashed) is started again; the processes ride it out.
  database.embedded?.keepRunning({ log: say });
  await requireDirectConnection(database);
  const { applied, partitions } = await migrate(database.directUrl, { partitions: env.db.BELFRY_PARTITIONS });
  if (applied.length) say(`applied migrations: ${applied.join(', ')}`);
  const encryptionKey = localSecret('encryption-key', env.BELFRY_ENCRYPTION_KEY);
  const seeded = await seed(database.url, partitions, encryptionKey, env.BELFRY_DECRYPTION_KEYS);
  if (stopping) return;

  supervisor = new Supervisor({ say });
  supervisor.on('give-up', () => void stop(1));
  const inherited = childEnv({
    DATABASE_URL: database.url,
    ...(database.directConfigured ? { BELFRY_DIRECT_DATABASE_URL: database.directUrl } : {}),
    BELFRY_ENCRYPTION_KEY: encryptionKey,
    NEXTAUTH_SECRET: localSecret('nextauth', env.NEXTAUTH_SECRET),
    NEXTAUTH_URL: env.NEXTAUTH_URL ?? `http://localhost:${env.PORT}`,
    PORT: String(env.PORT),
    NEXT_TELEMETRY_DISABLED: '1',
  });
  // Schemas may have changed since the last install: the client's types follow them.
  spawnSync(process.execPath, ['--import', 'tsx', 'packages/client/scripts/generate.ts'], {
    cwd: root,
    stdio: 'inherit',
  });

  supervisor.add({
    name: 'web',
    command: join(root, 'node_modules/.bin/next'),
    args: ['dev', '-p', String(env.PORT)],
    cwd: join(root, 'apps/web'),
    env: inherited,
  });
  if (env.BELFRY_ROLES.trim() !== 'none') {
    supervisor.add({
      name: 'engine',
      command: process.execPath,
      args: ['--watch', '--import', 'tsx', 'apps/engine/src/main.ts'],
      cwd: root,
      env: { ...inherited, BELFRY_ROLES: env.BELFRY_ROLES },
    });
  }
  say(`dashboard and API: http://localhost:${env.PORT} (next dev); engine restarts when its sources change`);
  if (seeded.created) {
    say('first run: seeded a demo tenant');
    say(`  login:    ${seeded.email}`);
    say(`  password: ${seeded.password}`);
    say(`  API key:  ${seeded.apiKey}`);
  }
}

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => void stop(0));

main().catch(async (err) => {
  let url: string | undefined;
  try {
    url = readDbEnv().DATABASE_URL;
  } catch {}
  process.stderr.write(`[belfry dev] failed to start: ${explainStartupError(err, url)}\n`);
  await stop(1);
});
