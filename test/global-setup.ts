// Integration-test bootstrap, run once per `vitest run`: resolves PostgreSQL (embedded unless
// DATABASE_URL is set), builds a migrated template database (named after the migrations'
// checksums, so it is rebuilt only when they change) and hands its URL to the test files,
// which clone it (see test/db.ts).
import { createHash } from 'node:crypto';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { installQueueSchema, migrate, readDbEnv, readMigrations, resolveDatabase, withDatabase } from '@belfry/db';
import './db';

const TEST_PARTITIONS = 16;

export default async function setup(project: TestProject) {
  const env = readDbEnv();
  const target = await resolveDatabase(env);
  const serverUrl = withDatabase(target.url, 'postgres');
  const fingerprint = createHash('sha256')
    .update(
      readMigrations()
        .map((m) => m.checksum)
        .join(','),
    )
    .update(`partitions=${TEST_PARTITIONS}`)
    .update(String(installQueueSchema.version))
    .digest('hex')
    .slice(0, 12);
  const templateName = `belfry_tpl_${fingerprint}`;

  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query('SELECT pg_advisory_lock(4242002)');
    const { rowCount } = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1 AND datistemplate', [
      templateName,
    ]);
    if (!rowCount) {
      await admin.query(`DROP DATABASE IF EXISTS "${templateName}"`);
      await admin.query(`CREATE DATABASE "${templateName}"`);
      const url = withDatabase(target.url, templateName);
      await migrate(url, { partitions: TEST_PARTITIONS });
      await installQueueSchema(url);
      await admin.query(`ALTER DATABASE "${templateName}" WITH IS_TEMPLATE true`);
    }
    // Databases left behind by test runs that were killed.
    const { rows } = await admin.query<{ datname: string }>(
      `SELECT datname FROM pg_database WHERE datname LIKE 'belfry_test_%'
         AND NOT EXISTS (SELECT 1 FROM pg_stat_activity a WHERE a.datname = pg_database.datname)`,
    );
    const stale = Date.now() - 6 * 60 * 60 * 1000;
    for (const r of rows) {
      const created = Number(/^belfry_test_(\d+)_/.exec(r.datname)?.[1] ?? 0);
      if (created && created < stale) await admin.query(`DROP DATABASE IF EXISTS "${r.datname}"`).catch(() => {});
    }
  } finally {
    await admin.query('SELECT pg_advisory_unlock(4242002)').catch(() => {});
    await admin.end();
  }

  project.provide('templateUrl', withDatabase(target.url, templateName));
  project.provide('templateName', templateName);
  project.provide('serverUrl', serverUrl);
  project.provide('partitions', TEST_PARTITIONS);

  return async () => {
    await target.release();
  };
}
