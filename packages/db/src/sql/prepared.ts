// The engine's hot statements (a claim, a completion) are long: PostgreSQL parsed and analyzed
// their text at every call, ~7 % of its CPU in a 100K herd (perf, PostgreSQL 18.4). A named
// statement is parsed once per connection and afterwards only bound and run. Names are kept
// only on connections that are known to reach PostgreSQL itself (keepPreparedStatements): behind
// a transaction pooler (PgBouncer) the next transaction may run on another server connection,
// which never saw the name, so there every statement stays unnamed, as before.
//
// Planning is unchanged: a named statement is used only in a transaction that plans every
// statement for its parameters (withTransaction's namedStatements: plan_cache_mode =
// force_custom_plan), as an unnamed one is. Left to choose, PostgreSQL took a generic plan for
// the completion after five calls, and a generic plan of a statement on runs prunes no day
// partition: it read every one of them, at every completion.
import type pg from 'pg';
import type { NamedStatement, Queryable } from './types';

const keeping = new WeakSet<object>();
/** clients in a transaction that plans each statement for its parameters */
const custom = new WeakSet<object>();

/** The clients of `pool` keep named statements from now on (a pool of direct connections only). */
export function keepPreparedStatements(pool: pg.Pool): void {
  pool.on('connect', (client) => keeping.add(client));
}

/** `text` under `name` where `db` keeps named statements and plans each call, else the text itself. */
export function statement(db: Queryable, name: string, text: string): string | NamedStatement {
  return keeping.has(db) && custom.has(db) ? { name, text } : text;
}

/** withTransaction: `client` is (or is no longer) in a transaction planning each statement. */
export function planningEachCall(client: object, on: boolean): void {
  if (on) custom.add(client);
  else custom.delete(client);
}

/**
 * A named statement whose result columns changed since it was prepared (a migration altered a
 * table under a running node) fails on that connection every time: the connection is dropped.
 */
export function isStalePreparedStatement(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown };
  return e?.code === '0A000' && typeof e.message === 'string' && e.message.includes('cached plan must not change');
}
