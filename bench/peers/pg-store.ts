// What the two PostgreSQL peers' stores share: VACUUM ANALYZE after a bulk load (as the Belfry
// herd does after its load) and the backends connected to the peer's database.
import pg from 'pg';

async function withClient<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

export function vacuumAnalyze(url: string): Promise<void> {
  return withClient(url, async (c) => {
    await c.query('VACUUM ANALYZE');
  });
}

/** Backends of the database (workers' pools, the producer), this probe's own excepted. */
export function backendPids(url: string): Promise<number[]> {
  return withClient(url, async (c) => {
    const { rows } = await c.query<{ pid: number }>(
      'SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
    );
    return rows.map((r) => r.pid);
  });
}

export function durability(url: string): Promise<Record<string, string>> {
  return withClient(url, async (c) => {
    const { rows } = await c.query<{ name: string; setting: string }>(
      "SELECT name, setting FROM pg_settings WHERE name IN ('server_version', 'synchronous_commit', 'fsync', 'wal_sync_method')",
    );
    return Object.fromEntries(rows.map((r) => [r.name, r.setting]));
  });
}
