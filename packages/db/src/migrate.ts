// Applies prisma/migrations/*/migration.sql in order and records them in
// `_prisma_migrations` exactly as `prisma migrate deploy` does (same table, sha256 checksum),
// because Prisma's migrate engine cannot be downloaded here. Then fixes the partition count
// on first migration and creates one lease row per partition.
import { createHash, randomUUID } from 'node:crypto';
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { migrationsDir } from './paths';
import { StartupError } from './startup-error';

export interface MigrationFile {
  name: string;
  sql: string;
  checksum: string;
}

export function readMigrations(dir: string = migrationsDir()): MigrationFile[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(join(dir, d.name, 'migration.sql')))
    .map((d) => d.name)
    .sort()
    .map((name) => {
      const sql = readFileSync(join(dir, name, 'migration.sql'), 'utf8');
      return { name, sql, checksum: createHash('sha256').update(sql).digest('hex') };
    });
}

export interface MigrateResult {
  applied: string[];
  partitions: number;
}

const LOCK_KEY = 72707369; // the advisory lock key prisma migrate uses

export async function migrate(url: string, options: { partitions: number; dir?: string }): Promise<MigrateResult> {
  const client = new pg.Client({ connectionString: url, application_name: 'belfry-migrate' });
  // A server that goes away mid-migration fails the pending query; the client's 'error' event
  // must not also take the process down.
  client.on('error', () => {});
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [LOCK_KEY]);
    await client.query(`
      CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
        "id"                  VARCHAR(36) PRIMARY KEY NOT NULL,
        "checksum"            VARCHAR(64) NOT NULL,
        "finished_at"         TIMESTAMPTZ,
        "migration_name"      VARCHAR(255) NOT NULL,
        "logs"                TEXT,
        "rolled_back_at"      TIMESTAMPTZ,
        "started_at"          TIMESTAMPTZ NOT NULL DEFAULT now(),
        "applied_steps_count" INTEGER NOT NULL DEFAULT 0
      )`);
    const { rows } = await client.query<{ migration_name: string; checksum: string; finished_at: Date | null }>(
      'SELECT migration_name, checksum, finished_at FROM "_prisma_migrations" WHERE rolled_back_at IS NULL',
    );
    const done = new Map(rows.map((r) => [r.migration_name, r]));
    const applied: string[] = [];
    for (const m of readMigrations(options.dir)) {
      const prior = done.get(m.name);
      if (prior?.finished_at) {
        if (prior.checksum !== m.checksum) {
          throw new StartupError(
            `Migration ${m.name} was changed after it was applied (checksum mismatch); add a new migration instead.`,
          );
        }
        continue;
      }
      if (prior)
        throw new StartupError(
          `Migration ${m.name} previously failed; fix the database by hand, then mark it rolled back.`,
        );
      const id = randomUUID();
      await client.query('BEGIN');
      try {
        await client.query(m.sql);
        await client.query(
          `INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, applied_steps_count)
           VALUES ($1, $2, now(), $3, 1)`,
          [id, m.checksum, m.name],
        );
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK').catch(() => {});
        throw new StartupError(`Migration ${m.name} failed: ${(err as Error).message}`);
      }
      applied.push(m.name);
    }
    await client.query(
      `INSERT INTO belfry_settings (key, value) VALUES ('partitions', $1) ON CONFLICT (key) DO NOTHING`,
      [String(options.partitions)],
    );
    const { rows: setting } = await client.query<{ value: string }>(
      `SELECT value FROM belfry_settings WHERE key = 'partitions'`,
    );
    const partitions = Number(setting[0]?.value);
    await client.query(
      `INSERT INTO partition_leases (partition) SELECT generate_series(0, $1::int - 1) ON CONFLICT DO NOTHING`,
      [partitions],
    );
    return { applied, partitions };
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [LOCK_KEY]).catch(() => {});
    await client.end();
  }
}
