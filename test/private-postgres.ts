// A PostgreSQL server of a test's own, for tests that stop, restart or cut off the database
// (the shared test server must never go away under other files). The embedded binaries the
// project ships, a data directory in a temporary directory, a port the test chooses; migrated
// like a production database. Stopping is a fast shutdown (as `pg_ctl restart -m fast`).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { createPool, ensureEmbeddedPostgres, type EmbeddedServer, migrate } from '@belfry/db';

export interface PrivatePostgres {
  /** the belfry database (through no proxy) */
  url: string;
  port: number;
  /** a pool on `url` for the test's own reads and writes */
  pool: pg.Pool;
  partitions: number;
  /** fast shutdown: every session is aborted, the server exits */
  stop(): Promise<void>;
  /** starts it again on the same port and data */
  start(): Promise<void>;
  /** ends every session of `database` except the caller's (pg_terminate_backend) */
  terminateBackends(applicationPrefix?: string): Promise<number>;
  /** stops the server for good and removes its data */
  destroy(): Promise<void>;
}

export async function startPrivatePostgres(port: number, partitions = 16): Promise<PrivatePostgres> {
  const home = mkdtempSync(join(tmpdir(), 'belfry-private-pg-'));
  let server: EmbeddedServer | null = await ensureEmbeddedPostgres({ home, port, log: () => {} });
  const url = server.url;
  await migrate(url, { partitions });
  const pool = createPool(url, { max: 4, name: 'belfry-test-private' });
  const self: PrivatePostgres = {
    url,
    port,
    pool,
    partitions,
    async stop() {
      await server?.stop();
      server = null;
    },
    async start() {
      server = await ensureEmbeddedPostgres({ home, port, log: () => {} });
    },
    async terminateBackends(applicationPrefix = 'belfry') {
      const admin = new pg.Client({ connectionString: url });
      admin.on('error', () => {});
      await admin.connect();
      try {
        const { rows } = await admin.query<{ n: number }>(
          `SELECT count(*) FILTER (WHERE pg_terminate_backend(pid))::int AS n FROM pg_stat_activity
           WHERE pid <> pg_backend_pid() AND datname = current_database() AND application_name LIKE $1 || '%'
             AND application_name <> 'belfry-test-private'`,
          [applicationPrefix],
        );
        return rows[0]?.n ?? 0;
      } finally {
        await admin.end().catch(() => {});
      }
    },
    async destroy() {
      await pool.end().catch(() => {});
      await server?.stop();
      server = null;
      rmSync(home, { recursive: true, force: true });
    },
  };
  return self;
}
