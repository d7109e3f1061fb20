// Transactions on a node-postgres pool: BEGIN, the caller's work, COMMIT — or ROLLBACK and,
// for deadlocks and serialization failures, the whole transaction again. A client whose
// ROLLBACK fails is discarded rather than returned to the pool.
import type pg from 'pg';

const RETRYABLE = new Set(['40P01', '40001']);

export interface TransactionOptions {
  /** how many times to run the transaction when it hits a deadlock or serialization failure */
  maxTries?: number;
}

export async function withTransaction<T>(
  pool: pg.Pool,
  fn: (client: pg.PoolClient) => Promise<T>,
  options: TransactionOptions = {},
): Promise<T> {
  const maxTries = options.maxTries ?? 3;
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
      if (attempt < maxTries && typeof code === 'string' && RETRYABLE.has(code)) continue;
      throw err;
    } finally {
      client.release(broken);
    }
  }
}
