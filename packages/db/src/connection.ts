// Resolves which PostgreSQL Belfry talks to: DATABASE_URL when set, otherwise the embedded
// server under .belfry/ (started or shared, see embedded.ts). DATABASE_URL may go through a
// transaction pooler such as PgBouncer; what needs a session of its own (LISTEN, session
// advisory locks, migrations) uses the direct URL, BELFRY_DIRECT_DATABASE_URL.
import pg from 'pg';
import { ensureEmbeddedPostgres, type EmbeddedServer } from './embedded';
import { readDbEnv, type DbEnv } from './env';
import { belfryHome } from './paths';
import { StartupError } from './startup-error';
import { keepPreparedStatements } from './sql/prepared';
import { POOL_TYPES } from './timestamps';
import { setTransactionSettings } from './transaction';

export interface DatabaseTarget {
  /** for pools: transactions and single statements (may be a transaction pooler) */
  url: string;
  /** straight to PostgreSQL: LISTEN, session advisory locks, migrations */
  directUrl: string;
  /** BELFRY_DIRECT_DATABASE_URL was given */
  directConfigured: boolean;
  /** the embedded server, when one is in use; `owned` tells whether we must stop it */
  embedded: EmbeddedServer | null;
  release(): Promise<void>;
}

export async function resolveDatabase(
  env: DbEnv = readDbEnv(),
  log?: (message: string) => void,
): Promise<DatabaseTarget> {
  if (env.DATABASE_URL) {
    return {
      url: env.DATABASE_URL,
      directUrl: env.BELFRY_DIRECT_DATABASE_URL ?? env.DATABASE_URL,
      directConfigured: Boolean(env.BELFRY_DIRECT_DATABASE_URL),
      embedded: null,
      release: async () => {},
    };
  }
  if (env.BELFRY_DIRECT_DATABASE_URL) {
    throw new StartupError(
      'BELFRY_DIRECT_DATABASE_URL is set but DATABASE_URL is not: set DATABASE_URL too (the pooled URL), or unset both to use the embedded PostgreSQL.',
    );
  }
  const embedded = await ensureEmbeddedPostgres({
    home: belfryHome(env.BELFRY_HOME),
    port: env.BELFRY_PG_PORT,
    ...(log ? { log } : {}),
  });
  return {
    url: embedded.url,
    directUrl: embedded.url,
    directConfigured: false,
    embedded,
    release: () => embedded.stop(),
  };
}

/**
 * Does `url` reach PostgreSQL through a connection pooler? A pooler answers the startup with
 * a cancel key of its own, so the "process id" the client was given is not the id of the
 * server process that runs its queries.
 */
export async function goesThroughPooler(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  client.on('error', () => {});
  try {
    await client.connect();
    const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    return (client as unknown as { processID: number | null }).processID !== rows[0]?.pid;
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * Refuses to start when DATABASE_URL goes through a pooler and no direct URL was given: LISTEN
 * and session locks would silently misbehave behind a transaction pooler.
 */
export async function requireDirectConnection(target: DatabaseTarget): Promise<void> {
  if (target.embedded || target.directConfigured) return;
  if (await goesThroughPooler(target.url)) {
    throw new StartupError(
      'DATABASE_URL goes through a connection pooler (such as PgBouncer): set BELFRY_DIRECT_DATABASE_URL to a direct PostgreSQL URL for LISTEN, session locks and migrations (or to DATABASE_URL itself if the pooler runs in session mode); see docs/operations.md.',
    );
  }
}

/**
 * May pools on `target.url` keep named statements (prepared.ts)? Only where the URL reaches
 * PostgreSQL itself: the embedded server, a DATABASE_URL that requireDirectConnection found
 * direct (no BELFRY_DIRECT_DATABASE_URL given), or one told apart from a pooler here. Call it
 * after requireDirectConnection.
 */
export async function reachesServerDirectly(target: DatabaseTarget): Promise<boolean> {
  if (target.embedded || !target.directConfigured) return true;
  return !(await goesThroughPooler(target.url));
}

export interface PoolOptions {
  max?: number;
  /** connections kept open however long they sit idle (default 0: idle ones close after 30 s) */
  min?: number;
  name?: string;
  /**
   * Settings every transaction on this pool starts with (SET LOCAL, sent with BEGIN in one
   * round trip). Not connection startup options: a transaction pooler refuses those, and
   * would not keep them for the server connection a transaction lands on anyway.
   */
  transactionSettings?: Record<string, number | string>;
  /** how long a new connection may take (default 10 s) */
  connectionTimeoutMs?: number;
  /** told about errors of idle connections (the server restarted, a backend was terminated) */
  onError?: (err: Error) => void;
  /**
   * The pool's connections reach PostgreSQL itself (no transaction pooler between): hot
   * statements are prepared once per connection under a name (prepared.ts).
   */
  preparedStatements?: boolean;
}

export function createPool(url: string, options: PoolOptions = {}): pg.Pool {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max ?? 10,
    min: options.min ?? 0,
    application_name: options.name ?? 'belfry',
    idleTimeoutMillis: 30_000,
    // A database that does not answer a connection attempt (a network path gone dark) fails
    // it after this long instead of holding the caller forever; keepalive notices dead peers.
    connectionTimeoutMillis: options.connectionTimeoutMs ?? 10_000,
    keepAlive: true,
    // timestamptz read by position, the rest as pg reads it (timestamps.ts)
    types: POOL_TYPES,
  });
  // An idle client's error (e.g. the server restarted) must not crash the process; the
  // pool drops that client and the next query reconnects.
  pool.on('error', (err) => options.onError?.(err));
  if (options.transactionSettings) setTransactionSettings(pool, options.transactionSettings);
  if (options.preparedStatements) keepPreparedStatements(pool);
  return pool;
}

/**
 * Every relation (and each of its partitions and indexes) the engine's hot statements touch.
 * A new backend builds its catalog cache entries for a relation on first use: for the runs
 * table, ten day partitions with eight indexes each, about 10 ms of CPU per backend. Planning
 * these probes (no partition key, so nothing is pruned) builds them all; their execution finds
 * nothing.
 */
const WARM_CATALOG_SQL = `SELECT
  (SELECT count(*) FROM runs WHERE id = '' AND job_id = '')
  + (SELECT count(*) FROM run_attempts WHERE run_id = '')
  + (SELECT count(*) FROM jobs WHERE id = '')
  + (SELECT count(*) FROM jobs WHERE partition = -1 AND next_run_at IS NOT NULL)
  + (SELECT count(*) FROM partition_leases WHERE partition = -1)
  + (SELECT count(*) FROM pgboss.job WHERE name = '' AND id = '00000000-0000-0000-0000-000000000000')
  AS n`;

/**
 * Opens `count` of the pool's connections at once, each with its catalog caches built for the
 * engine's tables, before the node takes work. Otherwise the first burst of due runs (claims,
 * the start gate, completions, the scheduler's scans at once) opens them — a TCP connect, a
 * SCRAM exchange (PBKDF2, milliseconds of CPU on both sides), a backend fork and the catalog
 * loads — in the very seconds whose start lag they add to. With the pool's `min` at `count`
 * they stay open through quiet hours, so the top of the hour finds them ready. Best effort: a
 * failure here shows again on first use. Returns how many connections it warmed.
 */
export async function warmPool(pool: pg.Pool, count: number): Promise<number> {
  const clients = await Promise.allSettled(Array.from({ length: count }, () => pool.connect()));
  const warmed = await Promise.allSettled(
    clients.map(async (c) => {
      if (c.status !== 'fulfilled') throw c.reason;
      try {
        await c.value.query(WARM_CATALOG_SQL);
      } finally {
        c.value.release();
      }
    }),
  );
  return warmed.filter((w) => w.status === 'fulfilled').length;
}

/**
 * Answers within `timeoutMs` whether the database runs a query for `pool`: rejects with why
 * not. A database that does not answer at all (a network path gone dark, no reset) must not
 * hang the caller — a health check is asked exactly then — so a connection that has not
 * answered in time is discarded rather than returned to the pool, and one that arrives too
 * late is released unused.
 */
export async function pingDatabase(pool: pg.Pool, timeoutMs = 1_500): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  let timedOut = false;
  let client: pg.PoolClient | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      timedOut = true;
      // Discarded, not released: a statement may still be in flight on it.
      client?.release(new Error('database did not answer in time'));
      reject(new Error(`the database did not answer within ${timeoutMs} ms`));
    }, timeoutMs);
  });
  const ping = (async () => {
    const connected = await pool.connect();
    if (timedOut) {
      connected.release(new Error('connected too late'));
      return;
    }
    client = connected;
    const onError = () => {}; // the query below fails as well; it says why
    connected.on('error', onError);
    try {
      await connected.query('SELECT 1');
    } catch (err) {
      if (!timedOut) {
        connected.off('error', onError);
        connected.release(err as Error);
      }
      throw err;
    }
    if (!timedOut) {
      connected.off('error', onError);
      connected.release();
    }
  })();
  ping.catch(() => {}); // after a timeout nobody awaits it
  try {
    await Promise.race([ping, expired]);
  } finally {
    clearTimeout(timer);
  }
}

/** Replaces the database name in a PostgreSQL URL. */
export function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}
