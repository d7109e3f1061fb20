// The engine's hot statements (a claim, a completion) are long: PostgreSQL parsed and analyzed
// their text at every call, ~7 % of its CPU in a 100K herd (perf, PostgreSQL 18.4). A named
// statement is parsed once per connection and afterwards only bound and run. Names are kept
// only on connections that are known to reach PostgreSQL itself (keepPreparedStatements): behind
// a transaction pooler (PgBouncer) the next transaction may run on another server connection,
// which never saw the name, so there every statement stays unnamed, as before.
//
// A named statement is used only in a transaction that plans every statement for its
// parameters (withTransaction's namedStatements: plan_cache_mode = force_custom_plan), as an
// unnamed one is planned. Left to choose, PostgreSQL took a generic plan for the completion
// after five calls, and a generic plan of a statement on runs prunes no day partition: it read
// every one of them, at every completion. In those transactions the plans PostgreSQL caches
// itself are made per call too — the foreign-key checks of a retry's queue message, an
// incident's rows — where a generic plan would serve after five; PL/pgSQL functions with a
// plan_cache_mode of their own (belfry_take_many) keep it.
import type pg from 'pg';
import type { NamedStatement, Queryable } from './types';

const keepingPools = new WeakSet<pg.Pool>();
/** clients of such a pool in a transaction that plans each statement for its parameters */
const custom = new WeakSet<object>();

/** The clients of `pool` keep named statements from now on (a pool of direct connections only). */
export function keepPreparedStatements(pool: pg.Pool): void {
  keepingPools.add(pool);
}

/** Do the clients of `pool` keep named statements? */
export function keepsPreparedStatements(pool: pg.Pool): boolean {
  return keepingPools.has(pool);
}

/** `text` under `name` where `db` keeps named statements and plans each call, else the text itself. */
export function statement(db: Queryable, name: string, text: string): string | NamedStatement {
  return custom.has(db) ? { name, text } : text;
}

/**
 * withTransaction: `client`, of a pool that keeps named statements, is (or is no longer) in a
 * transaction planning each statement.
 */
export function planningEachCall(client: object, on: boolean): void {
  if (on) custom.add(client);
  else custom.delete(client);
}

/**
 * A named statement that fails on its connection at every use: its result columns changed
 * since it was prepared (a migration altered a table under a running node), or the server lost
 * it while node-postgres still counts it prepared (26000). The connection is dropped.
 */
export function isStalePreparedStatement(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown };
  if (e?.code === '26000') return true;
  return e?.code === '0A000' && typeof e.message === 'string' && e.message.includes('cached plan must not change');
}
