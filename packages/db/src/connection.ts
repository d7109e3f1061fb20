// Resolves which PostgreSQL Belfry talks to: DATABASE_URL when set, otherwise the embedded
// server under .belfry/ (started or shared, see embedded.ts).
import pg from 'pg';
import { ensureEmbeddedPostgres, type EmbeddedServer } from './embedded';
import { readDbEnv, type DbEnv } from './env';
import { belfryHome } from './paths';

export interface DatabaseTarget {
  url: string;
  /** the embedded server, when one is in use; `owned` tells whether we must stop it */
  embedded: EmbeddedServer | null;
  release(): Promise<void>;
}

export async function resolveDatabase(
  env: DbEnv = readDbEnv(),
  log?: (message: string) => void,
): Promise<DatabaseTarget> {
  if (env.DATABASE_URL) {
    return { url: env.DATABASE_URL, embedded: null, release: async () => {} };
  }
  const embedded = await ensureEmbeddedPostgres({
    home: belfryHome(env.BELFRY_HOME),
    port: env.BELFRY_PG_PORT,
    ...(log ? { log } : {}),
  });
  return { url: embedded.url, embedded, release: () => embedded.stop() };
}

export function createPool(url: string, options: { max?: number; name?: string; options?: string } = {}): pg.Pool {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max ?? 10,
    application_name: options.name ?? 'belfry',
    idleTimeoutMillis: 30_000,
    ...(options.options ? { options: options.options } : {}),
  });
  // An idle client's error (e.g. the server restarted) must not crash the process; the
  // pool drops that client and the next query reconnects.
  pool.on('error', () => {});
  return pool;
}

/** Replaces the database name in a PostgreSQL URL. */
export function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}
