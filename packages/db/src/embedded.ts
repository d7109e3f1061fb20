// The embedded PostgreSQL used when DATABASE_URL is unset. The first process to need it
// initialises `.belfry/pg` and starts the server in its own process group (so a Ctrl-C aimed
// at Belfry's processes does not kill the database under them before they shut down);
// later processes find it running and share it. The owner stops it on exit. A server left
// behind by an owner that was killed with SIGKILL is adopted by the next process. Binaries
// and initdb: embedded-binaries.ts.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  closeSync,
  existsSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import pg from 'pg';
import {
  binariesIn,
  DEFAULT_OUTSIDE_ROOT,
  initDataDir,
  packagedBinaries,
  postgresIds,
  reachableBinaries,
  traversableByOthers,
} from './embedded-binaries';
import { StartupError } from './startup-error';

export interface EmbeddedServer {
  url: string;
  port: number;
  /** true when this process started or adopted the server and must stop it */
  owned: boolean;
  stop(): Promise<void>;
}

export interface EmbeddedOptions {
  home: string;
  port: number;
  database?: string;
  log?: (message: string) => void;
  /** the directory with the binaries' bin/, lib/, share/ (default: the npm platform package) */
  binaries?: string;
  /** where binaries and data go when the postgres user cannot reach them (default /var/lib/belfry) */
  outsideRoot?: string;
}

const USER = 'postgres';
const PASSWORD = 'postgres';

export function embeddedUrl(port: number, database = 'belfry'): string {
  return `postgresql://${USER}:${PASSWORD}@127.0.0.1:${port}/${database}`;
}

function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function canConnect(port: number): Promise<boolean> {
  const client = new pg.Client({ connectionString: embeddedUrl(port, 'postgres'), connectionTimeoutMillis: 2000 });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

function postmasterPid(dataDir: string): number | null {
  const file = join(dataDir, 'postmaster.pid');
  if (!existsSync(file)) return null;
  const pid = Number.parseInt(readFileSync(file, 'utf8').split('\n')[0] ?? '', 10);
  return Number.isFinite(pid) ? pid : null;
}

function postmasterPort(dataDir: string): number | null {
  const file = join(dataDir, 'postmaster.pid');
  if (!existsSync(file)) return null;
  const port = Number.parseInt(readFileSync(file, 'utf8').split('\n')[3] ?? '', 10);
  return Number.isFinite(port) ? port : null;
}

/** A cross-process lock on a file, held while deciding who starts the server. */
async function withLock<T>(file: string, fn: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    try {
      const fd = openSync(file, 'wx');
      writeFileSync(fd, String(process.pid));
      closeSync(fd);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const holder = Number.parseInt(readFileSync(file, 'utf8') || '0', 10);
      if (!isAlive(holder)) {
        rmSync(file, { force: true });
        continue;
      }
      if (Date.now() > deadline) throw new Error(`Timed out waiting for ${file} (held by pid ${holder})`);
      await sleep(100);
    }
  }
  try {
    return await fn();
  } finally {
    rmSync(file, { force: true });
  }
}

/** Is the TCP port free on 127.0.0.1? (Something that is not PostgreSQL may hold it.) */
function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolvePromise) => {
    const server = createServer();
    server.once('error', () => resolvePromise(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolvePromise(true)));
  });
}

async function startServer(home: string, dataDir: string, port: number, postgres: string): Promise<number> {
  const logFile = join(home, 'pg.log');
  const out = openSync(logFile, 'a');
  const ids = postgresIds();
  const child = spawn(
    postgres,
    [
      '-D',
      dataDir,
      '-p',
      String(port),
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'unix_socket_directories=',
      '-c',
      'max_connections=400',
      '-c',
      'shared_buffers=256MB',
      // A scheduler writes steadily (every run is inserted and updated a few times): with the
      // 1 GB default a busy hour checkpoints every few seconds, and each checkpoint makes the
      // next write of every page log a full page image (checksums are on since PostgreSQL 18).
      '-c',
      'max_wal_size=4GB',
    ],
    // biome-ignore lint/style/noProcessEnv: the server inherits this process's environment, messages in English
    { detached: true, stdio: ['ignore', out, out], ...(ids ?? {}), env: { ...process.env, LC_MESSAGES: 'C' } },
  );
  closeSync(out);
  let exited: number | null = null;
  let failed: NodeJS.ErrnoException | null = null;
  child.on('exit', (code) => {
    exited = code ?? -1;
  });
  child.on('error', (err) => {
    failed = err;
  });
  child.unref();
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (failed) {
      const err = failed as NodeJS.ErrnoException;
      throw new StartupError(
        `Cannot run ${postgres} (${err.code ?? err.message}): put Belfry in a directory the user PostgreSQL runs as can traverse, or set DATABASE_URL.`,
      );
    }
    if (exited !== null) {
      const tail = readFileSync(logFile, 'utf8').split('\n').slice(-15).join('\n');
      throw new Error(`Embedded PostgreSQL exited with code ${exited} while starting on port ${port}.\n${tail}`);
    }
    if (await canConnect(port)) return child.pid ?? 0;
    await sleep(100);
  }
  throw new Error(`Embedded PostgreSQL did not accept connections on port ${port} within 60 s (see ${logFile})`);
}

async function ensureDatabase(port: number, database: string): Promise<void> {
  const client = new pg.Client({ connectionString: embeddedUrl(port, 'postgres') });
  client.on('error', () => {}); // a failure also rejects the pending query
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (!rowCount)
      await client.query(`CREATE DATABASE "${database.replaceAll('"', '""')}"`).catch((err: { code?: string }) => {
        if (err.code !== '42P04') throw err; // created concurrently
      });
  } finally {
    await client.end();
  }
}

async function stopPostmaster(pid: number): Promise<void> {
  if (!isAlive(pid)) return;
  process.kill(pid, 'SIGINT'); // fast shutdown: abort sessions, checkpoint, exit
  const deadline = Date.now() + 30_000;
  while (isAlive(pid)) {
    if (Date.now() > deadline) {
      process.kill(pid, 'SIGQUIT');
      break;
    }
    await sleep(50);
  }
}

/**
 * As root, PostgreSQL runs as the `postgres` user, which must reach the data directory. When
 * the checkout sits somewhere it cannot walk into (a 0700 home), the data lives under
 * /var/lib/belfry instead and `.belfry/pg` links to it.
 */
function prepareDataDir(home: string, outsideRoot: string): string {
  const dataDir = join(home, 'pg');
  const ids = postgresIds();
  if (!ids) return dataDir;
  chmodSync(home, 0o755);
  if (existsSync(dataDir)) return realpathSync(dataDir);
  if (traversableByOthers(home)) return dataDir;
  const outside = join(outsideRoot, createHash('sha256').update(resolve(home)).digest('hex').slice(0, 16));
  mkdirSync(dirname(outside), { recursive: true, mode: 0o755 });
  chmodSync(dirname(outside), 0o755);
  mkdirSync(outside, { recursive: true, mode: 0o700 });
  chownSync(outside, ids.uid, ids.gid);
  let linked = false;
  try {
    linked = lstatSync(dataDir).isSymbolicLink();
  } catch {
    // no link yet
  }
  if (!linked) symlinkSync(outside, dataDir);
  return outside;
}

export async function ensureEmbeddedPostgres(options: EmbeddedOptions): Promise<EmbeddedServer> {
  const { home, port } = options;
  const database = options.database ?? 'belfry';
  const log = options.log ?? ((m: string) => process.stderr.write(`${m}\n`));
  mkdirSync(home, { recursive: true });
  const outsideRoot = options.outsideRoot ?? DEFAULT_OUTSIDE_ROOT;
  const dataDir = prepareDataDir(home, outsideRoot);
  const ownerFile = join(home, 'pg-owner.json');

  const owned = await withLock(join(home, 'pg.lock'), async () => {
    if (await canConnect(port)) {
      const pmPort = postmasterPort(dataDir);
      if (pmPort !== port) {
        throw new StartupError(
          `Port ${port} is taken by a PostgreSQL server that is not Belfry's embedded one (${dataDir}). ` +
            'Set BELFRY_PG_PORT to a free port, or DATABASE_URL to use that server.',
        );
      }
      const owner = existsSync(ownerFile) ? (JSON.parse(readFileSync(ownerFile, 'utf8')) as { pid: number }) : null;
      if (owner && isAlive(owner.pid) && owner.pid !== process.pid) return false;
      // Orphaned (its owner was killed): adopt it so that it is stopped when we exit.
      writeFileSync(ownerFile, JSON.stringify({ pid: process.pid, postmaster: postmasterPid(dataDir) }));
      return true;
    }
    if (!(await portIsFree(port))) {
      throw new StartupError(
        `Port ${port} (BELFRY_PG_PORT) is in use by another program: set BELFRY_PG_PORT to a free port, or DATABASE_URL to use an existing PostgreSQL.`,
      );
    }
    const source = options.binaries ? binariesIn(options.binaries) : await packagedBinaries();
    const binaries = reachableBinaries(source, { outsideRoot, log });
    if (!existsSync(join(dataDir, 'PG_VERSION'))) {
      log(`Initialising embedded PostgreSQL in ${dataDir} ...`);
      await initDataDir(binaries, dataDir, { user: USER, password: PASSWORD });
    }
    const stalePid = postmasterPid(dataDir);
    if (stalePid !== null && !isAlive(stalePid)) rmSync(join(dataDir, 'postmaster.pid'), { force: true });
    const pid = await startServer(home, dataDir, port, binaries.postgres);
    writeFileSync(ownerFile, JSON.stringify({ pid: process.pid, postmaster: pid }));
    return true;
  });

  await ensureDatabase(port, database);

  let stopped = false;
  return {
    url: embeddedUrl(port, database),
    port,
    owned,
    async stop() {
      if (!owned || stopped) return;
      stopped = true;
      const pid = postmasterPid(dataDir);
      if (pid !== null) await stopPostmaster(pid);
      rmSync(ownerFile, { force: true });
    },
  };
}
