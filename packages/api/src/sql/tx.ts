// Transactions on a node-postgres client. Domain writes that touch several tables (a job and
// its schedule entry, a run and its queue message) go through here so they commit together.
import type pg from 'pg';

/** What a query needs: a pool, or a client inside BEGIN. */
export interface Queryable {
  query<R extends pg.QueryResultRow = pg.QueryResultRow>(text: string, values?: unknown[]): Promise<pg.QueryResult<R>>;
}

// Deadlocks (the engine's scheduler locks schedule entries, then jobs; we lock jobs, then
// entries) and serialization failures are resolved by running the whole transaction again.
const RETRYABLE = new Set(['40P01', '40001']);
const MAX_TRIES = 3;

export async function withTransaction<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const client = await pool.connect();
    let broken: Error | undefined;
    try {
      await client.query('BEGIN');
      const result = await fn(client);
      await client.query('COMMIT');
      return result;
    } catch (err) {
      await client.query('ROLLBACK').catch((rollbackError: Error) => {
        broken = rollbackError; // the connection is unusable; do not return it to the pool
      });
      const code = (err as { code?: unknown }).code;
      if (attempt < MAX_TRIES && typeof code === 'string' && RETRYABLE.has(code)) continue;
      throw err;
    } finally {
      client.release(broken);
    }
  }
}
