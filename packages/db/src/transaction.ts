// Transactions on a node-postgres pool: BEGIN, the caller's work, COMMIT — or ROLLBACK and,
// for deadlocks and serialization failures, the whole transaction again. A client whose
// ROLLBACK fails is discarded rather than returned to the pool.
import type pg from 'pg';
import { holdsTooManyNames, isStalePreparedStatement, keepsPreparedStatements, usingNames } from './sql/prepared';

const RETRYABLE = new Set(['40P01', '40001']);

const begins = new WeakMap<pg.Pool, string>();

/**
 * Every transaction on `pool` will begin with these settings (SET LOCAL, in the same round
 * trip as BEGIN). This is how the engine gets idle_in_transaction_session_timeout — a stopped
 * node must not hold locks — through a transaction pooler, which refuses connection options.
 */
export function setTransactionSettings(pool: pg.Pool, settings: Record<string, number | string>): void {
  const sets = Object.entries(settings).map(([name, value]) => {
    if (!/^[a-z_]+$/.test(name)) throw new Error(`not a setting name: ${name}`);
    return `SET LOCAL ${name} = '${String(value).replaceAll("'", "''")}'`;
  });
  begins.set(pool, ['BEGIN', ...sets].join('; '));
}

export interface TransactionOptions {
  /** how many times to run the transaction when it hits a deadlock or serialization failure */
  maxTries?: number;
  /**
   * On a pool that keeps named statements (prepared.ts), the transaction uses them, and plans
   * no sequential scan where an index serves (enable_seqscan = off, sent with BEGIN). Elsewhere
   * nothing changes.
   */
  namedStatements?: boolean;
}

/**
 * Connections given up because their named statement went stale, at most, per transaction:
 * each is dropped and the transaction runs again on another (every connection of the pool may
 * hold the stale statement once).
 */
const STALE_CONNECTIONS_AT_MOST = 100;

// A named statement's plan is made once per connection and reused (prepared.ts): one made while
// a table was small reads it sequentially for as long as the plan lives, however large the table
// grows meanwhile (a day's partition of runs at midnight, open_runs before a herd). The
// transactions that use names plan no sequential scan where an index serves.
const INDEXES_WHERE_THEY_SERVE = 'SET LOCAL enable_seqscan = off';

export async function withTransaction<T>(
  pool: pg.Pool,
  fn: (client: pg.PoolClient) => Promise<T>,
  options: TransactionOptions = {},
): Promise<T> {
  const maxTries = options.maxTries ?? 3;
  const named = Boolean(options.namedStatements) && keepsPreparedStatements(pool);
  let stale = 0;
  for (let attempt = 1; ; attempt++) {
    const client = await pool.connect();
    let broken: Error | undefined;
    // The pool listens for errors of idle clients only. One checked out here can still get one
    // between statements (the server ended the session: idle_in_transaction_session_timeout,
    // a restart); unheard, it would take the process down. The next statement fails instead.
    const onError = (err: Error) => {
      broken = err;
    };
    client.on('error', onError);
    try {
      const begin = begins.get(pool) ?? 'BEGIN';
      await client.query(named ? `${begin}; ${INDEXES_WHERE_THEY_SERVE}` : begin);
      if (named) usingNames(client, true);
      const result = await fn(client);
      await client.query('COMMIT');
      return result;
    } catch (err) {
      await client.query('ROLLBACK').catch((rollbackError: Error) => {
        broken = rollbackError; // the connection is unusable; do not return it to the pool
      });
      // Its named statement would fail the same way at every use (prepared.ts): the connection
      // is dropped and the transaction runs again, not counted as a try (nothing was done).
      if (isStalePreparedStatement(err)) {
        broken ??= err as Error;
        if (stale++ < STALE_CONNECTIONS_AT_MOST) {
          attempt--;
          continue;
        }
      }
      const code = (err as { code?: unknown }).code;
      if (attempt < maxTries && typeof code === 'string' && RETRYABLE.has(code)) continue;
      throw err;
    } finally {
      usingNames(client, false);
      client.off('error', onError);
      // a connection that holds more named statements than it keeps is closed (prepared.ts)
      client.release(broken ?? (holdsTooManyNames(client) ? new Error('too many named statements') : undefined));
    }
  }
}
