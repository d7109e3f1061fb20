// The embedded PostgreSQL server as a process (embedded.ts decides when to start, share,
// adopt or stop it): started in its own process group and waited for until it takes
// connections, stopped with a fast shutdown, and what its postmaster.pid says about it.
import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import pg from 'pg';
import { postgresIds } from './embedded-binaries';
import { childProcessEnv } from './env';
import { StartupError } from './startup-error';

export const USER = 'postgres';
export const PASSWORD = 'postgres';

export function embeddedUrl(port: number, database = 'belfry'): string {
  return `postgresql://${USER}:${PASSWORD}@127.0.0.1:${port}/${database}`;
}

export function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function canConnect(port: number): Promise<boolean> {
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

export function postmasterPid(dataDir: string): number | null {
  const file = join(dataDir, 'postmaster.pid');
  if (!existsSync(file)) return null;
  const pid = Number.parseInt(readFileSync(file, 'utf8').split('\n')[0] ?? '', 10);
  return Number.isFinite(pid) ? pid : null;
}

export function postmasterPort(dataDir: string): number | null {
  const file = join(dataDir, 'postmaster.pid');
  if (!existsSync(file)) return null;
  const port = Number.parseInt(readFileSync(file, 'utf8').split('\n')[3] ?? '', 10);
  return Number.isFinite(port) ? port : null;
}

/** Is the TCP port free on 127.0.0.1? (Something that is not PostgreSQL may hold it.) */
export function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolvePromise) => {
    const server = createServer();
    server.once('error', () => resolvePromise(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolvePromise(true)));
  });
}

export async function startServer(home: string, dataDir: string, port: number, postgres: string): Promise<number> {
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
    // The server inherits this process's environment, with its messages in English.
    { detached: true, stdio: ['ignore', out, out], ...(ids ?? {}), env: childProcessEnv({ LC_MESSAGES: 'C' }) },
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

export async function ensureDatabase(port: number, database: string): Promise<void> {
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

export async function stopPostmaster(pid: number): Promise<void> {
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
