// Per-test-file databases: each file clones the migrated template, so files run in parallel
// without seeing each other's rows. Dropped when the file finishes.
import { randomBytes } from 'node:crypto';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { inject } from 'vitest';
import { createPool, migrate, migrationsDir, readMigrations, withDatabase } from '@belfry/db';

declare module 'vitest' {
  export interface ProvidedContext {
    templateUrl: string;
    templateName: string;
    serverUrl: string;
    partitions: number;
  }
}

export interface TestDatabase {
  url: string;
  name: string;
  pool: pg.Pool;
  partitions: number;
  /** closes the pool and drops the database */
  destroy(): Promise<void>;
}

export async function createTestDatabase(): Promise<TestDatabase> {
  const serverUrl = inject('serverUrl');
  const template = inject('templateName');
  // The creation time in the name lets a later run clean up databases of killed runs without
  // touching those of a run going on at the same time.
  const name = `belfry_test_${Date.now()}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    // CREATE DATABASE ... TEMPLATE fails while another session is connected to the template,
    // which happens briefly when files start at once; retry.
    for (let attempt = 0; ; attempt++) {
      try {
        await admin.query(`CREATE DATABASE "${name}" TEMPLATE "${template}"`);
        break;
      } catch (err) {
        if ((err as { code?: string }).code !== '55006' || attempt > 50) throw err;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  } finally {
    await admin.end();
  }
  const url = withDatabase(serverUrl, name);
  const pool = createPool(url, { max: 10, name: 'belfry-test' });
  return {
    url,
    name,
    pool,
    partitions: inject('partitions'),
    async destroy() {
      await pool.end();
      await dropTestDatabase(name);
    },
  };
}

/**
 * For upgrade tests: a new database migrated up to, not including, `firstUnapplied` (a deployment
 * of the version before that migration), with 16 partitions. Drop it with dropTestDatabase.
 */
export async function createDatabaseMigratedBefore(
  firstUnapplied: string,
  prefix: string,
): Promise<{ name: string; url: string }> {
  const name = `${prefix}_${Date.now()}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: inject('serverUrl') });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.end();
  }
  const url = withDatabase(inject('serverUrl'), name);
  const earlier = mkdtempSync(join(tmpdir(), 'belfry-migrations-'));
  try {
    for (const m of readMigrations().filter((m) => m.name < firstUnapplied))
      cpSync(join(migrationsDir(), m.name), join(earlier, m.name), { recursive: true });
    await migrate(url, { partitions: 16, dir: earlier });
  } catch (err) {
    await dropTestDatabase(name);
    throw err;
  } finally {
    rmSync(earlier, { recursive: true, force: true });
  }
  return { name, url };
}

export async function dropTestDatabase(name: string): Promise<void> {
  const admin = new pg.Client({ connectionString: inject('serverUrl') });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  } finally {
    await admin.end();
  }
}

export { withDatabase };
