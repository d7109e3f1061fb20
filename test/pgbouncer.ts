// A real PgBouncer (Debian package `pgbouncer`) for integration tests, in transaction pooling
// mode in front of the test PostgreSQL server, on a free loopback port. Every database of the
// server is reachable through it; its admin console (database `pgbouncer`) shows its clients.
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

export const PGBOUNCER_BINARY = '/usr/sbin/pgbouncer';

export interface PgBouncer {
  port: number;
  /** a URL of `database` through the pooler */
  url(database: string): string;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export async function startPgBouncer(serverUrl: string): Promise<PgBouncer> {
  if (!existsSync(PGBOUNCER_BINARY)) {
    throw new Error(`${PGBOUNCER_BINARY} is missing: install the Debian package pgbouncer (apt-get install pgbouncer)`);
  }
  const server = new URL(serverUrl);
  const user = decodeURIComponent(server.username);
  const password = decodeURIComponent(server.password);
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'belfry-pgbouncer-'));
  // As root, PgBouncer must drop to another user (-u), which has to read its files.
  chmodSync(dir, 0o755);
  const users = join(dir, 'users.txt');
  writeFileSync(users, `"${user}" ""\n`, { mode: 0o644 });
  const ini = join(dir, 'pgbouncer.ini');
  writeFileSync(
    ini,
    [
      '[databases]',
      // An empty `password=` spoils the whole line (PgBouncer then knows no database at all):
      // a server that trusts its clients (the machine's PostgreSQL 15) gets none.
      `* = host=${server.hostname} port=${server.port || 5432} user=${user}${password ? ` password=${password}` : ''}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${users}`,
      `admin_users = ${user}`,
      'pool_mode = transaction',
      'max_client_conn = 1000',
      'default_pool_size = 20',
      // No ignore_startup_parameters: a client that sends connection options is refused, as
      // in a default installation.
      '',
    ].join('\n'),
    { mode: 0o644 },
  );
  const asRoot = process.getuid?.() === 0;
  const child = spawn(PGBOUNCER_BINARY, [...(asRoot ? ['-u', 'postgres'] : []), ini], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  const up = new Promise<void>((resolve, reject) => {
    const onLine = (line: string) => {
      output.push(line);
      if (/process up/.test(line)) resolve();
    };
    createInterface({ input: child.stdout }).on('line', onLine);
    createInterface({ input: child.stderr }).on('line', onLine);
    child.once('exit', (code) => reject(new Error(`pgbouncer exited (${code}):\n${output.slice(-20).join('\n')}`)));
    child.once('error', reject);
  });
  await up;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    port,
    url: (database) => `postgresql://${encodeURIComponent(user)}@127.0.0.1:${port}/${encodeURIComponent(database)}`,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
