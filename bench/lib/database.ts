// The bench's databases: a fresh one per scenario (or per peer) on the configured server
// (embedded unless DATABASE_URL), dropped afterwards; ones a killed bench left are swept later.
import pg from 'pg';
import { createPool, migrate, readDbEnv, resolveDatabase, withDatabase, type DatabaseTarget } from '@belfry/db';
import { PgBoss } from 'pg-boss';

export interface BenchDb {
  url: string;
  name: string;
  pool: pg.Pool;
  serverVersion: string;
  drop(): Promise<void>;
}

let server: DatabaseTarget | undefined;
/** the PostgreSQL version of the last database created, for the report */
let lastServerVersion = '?';
export const serverVersion = (): string => lastServerVersion;

export interface EmptyDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

const STALE_MS = 6 * 3600_000;
let swept = false;

/**
 * Drops bench databases (`belfry_bench_*`, `belfry_peer_*`, named with their creation time in
 * base 36) that are hours old: what a bench killed outright (SIGKILL) could not drop itself.
 */
async function sweepStaleDatabases(admin: pg.Client): Promise<void> {
  const { rows } = await admin.query<{ datname: string }>(
    "SELECT datname FROM pg_database WHERE datname LIKE 'belfry\\_bench\\_%' OR datname LIKE 'belfry\\_peer\\_%'",
  );
  for (const { datname } of rows) {
    const created = Number.parseInt(datname.slice(datname.lastIndexOf('_') + 1), 36);
    if (Number.isFinite(created) && Date.now() - created > STALE_MS)
      await admin.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
  }
}

/** A new, empty database on the bench's server (each peer gets its own, as Belfry does per scenario). */
export async function createDatabase(prefix: string): Promise<EmptyDatabase> {
  server ??= await resolveDatabase(readDbEnv());
  const adminUrl = withDatabase(server.url, 'postgres');
  const name = `${prefix}_${Date.now().toString(36)}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    if (!swept) {
      swept = true;
      await sweepStaleDatabases(admin);
    }
    await admin.query(`CREATE DATABASE "${name}"`);
    lastServerVersion =
      (await admin.query<{ v: string }>("SELECT current_setting('server_version') AS v")).rows[0]?.v ?? '?';
  } finally {
    await admin.end();
  }
  return {
    url: withDatabase(server.url, name),
    name,
    async drop() {
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      try {
        await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      } finally {
        await c.end();
      }
    },
  };
}

export async function benchDatabase(partitions = 1024): Promise<BenchDb> {
  const db = await createDatabase('belfry_bench');
  const url = db.url;
  try {
    await migrate(url, { partitions });
    // The day partitions of runs and run_attempts a production database has: 30 days of history
    // (the default retention) besides the days ahead. A statement whose plan is reused opens
    // every partition at each call, so their number is part of what the hot path costs.
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    try {
      await c.query(
        `SELECT belfry_ensure_history_partitions((now() AT TIME ZONE 'UTC')::date - 30, (now() AT TIME ZONE 'UTC')::date + 7)`,
      );
    } finally {
      await c.end();
    }
    const boss = new PgBoss({
      connectionString: url,
      supervise: false,
      schedule: false,
      registerInstance: false,
      max: 2,
    });
    boss.on('error', () => {});
    await boss.start();
    await boss.stop({ graceful: false });
  } catch (err) {
    await db.drop().catch(() => {});
    throw err;
  }
  const pool = createPool(url, { max: 10, name: 'belfry-bench' });
  return {
    url,
    name: db.name,
    pool,
    serverVersion: lastServerVersion,
    async drop() {
      await pool.end();
      await db.drop();
    },
  };
}

export async function releaseServer(): Promise<void> {
  await server?.release();
  server = undefined;
}
