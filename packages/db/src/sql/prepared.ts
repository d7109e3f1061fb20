// The engine's hot statements (a claim, a completion) are long: PostgreSQL parsed and analyzed
// their text at every call, ~7 % of its CPU in a 100K herd (perf, PostgreSQL 18.4). A named
// statement is parsed once per connection and afterwards only bound and run. Names are kept
// only on connections that are known to reach PostgreSQL itself (keepPreparedStatements): behind
// a transaction pooler (PgBouncer) the next transaction may run on another server connection,
// which never saw the name, so there every statement stays unnamed, as before.
//
// A named statement is used only in withTransaction's namedStatements transactions, and is
// planned by PostgreSQL's plan cache: for its parameters at its first five calls on a
// connection, then, where that looks no dearer, once for all calls (a generic plan), re-planned
// when a table it reads changes (ANALYZE, DDL). So a statement gets a name only where a plan made
// once serves every call: the claim and the completion addressed to one day's partition of runs
// (runs-partitions.ts), the alert reset (which PostgreSQL keeps planning per call), the take.
// Addressed to runs itself they stay unnamed: a generic plan of a statement on runs prunes no
// day partition and reads every one. A plan made once must also not depend on how large the
// tables were when it was made, so those transactions plan no sequential scan where an index
// serves (withTransaction).
//
// The partitions' names change with the day, and each name keeps its plan in the server
// process: a connection that has prepared more than MAX_NAMES statements is closed after its
// transaction, and the pool opens a new one when it needs it.
import type pg from 'pg';
import type { NamedStatement, Queryable } from './types';

const keepingPools = new WeakSet<pg.Pool>();
/** clients of such a pool in a transaction that uses names */
const naming = new WeakSet<object>();
/** the names each client has prepared */
const prepared = new WeakMap<object, Set<string>>();
/** statements a connection keeps at most (a day's partition of runs adds two) */
export const MAX_NAMES = 16;
/** errors that make withTransaction run the transaction again on a new connection (markStale) */
const staleErrors = new WeakSet<object>();

/** The clients of `pool` keep named statements from now on (a pool of direct connections only). */
export function keepPreparedStatements(pool: pg.Pool): void {
  keepingPools.add(pool);
}

/** Do the clients of `pool` keep named statements? */
export function keepsPreparedStatements(pool: pg.Pool): boolean {
  return keepingPools.has(pool);
}

/**
 * `text` under `name` where `db` keeps named statements, else the text itself. Only for a
 * statement whose plan may be made once and reused (above).
 */
export function statement(db: Queryable, name: string, text: string): string | NamedStatement {
  if (!naming.has(db)) return text;
  let names = prepared.get(db);
  if (!names) {
    names = new Set();
    prepared.set(db, names);
  }
  names.add(name);
  return { name, text };
}

/** withTransaction: `client`, of a pool that keeps named statements, is (or is no longer) in a transaction that uses names. */
export function usingNames(client: object, on: boolean): void {
  if (on) naming.add(client);
  else naming.delete(client);
}

/** Has `client` prepared more statements than a connection keeps? It is then closed, not returned to its pool. */
export function holdsTooManyNames(client: object): boolean {
  return (prepared.get(client)?.size ?? 0) > MAX_NAMES;
}

/** `err` makes withTransaction run its transaction again on a new connection, as a stale statement does. */
export function markStale(err: unknown): void {
  if (typeof err === 'object' && err !== null) staleErrors.add(err);
}

/**
 * A named statement that fails on its connection at every use: its result columns changed
 * since it was prepared (a migration altered a table under a running node), or the server lost
 * it while node-postgres still counts it prepared (26000); or an error markStale marked (a
 * statement addressed to a day's partition of runs that is gone). The connection is dropped.
 */
export function isStalePreparedStatement(err: unknown): boolean {
  if (typeof err === 'object' && err !== null && staleErrors.has(err)) return true;
  const e = err as { code?: unknown; message?: unknown };
  if (e?.code === '26000') return true;
  return e?.code === '0A000' && typeof e.message === 'string' && e.message.includes('cached plan must not change');
}
