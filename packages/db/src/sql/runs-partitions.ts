// The engine's claim and completion update runs by primary key, a batch at a time, and a
// batch's runs nearly always share one day: those statements name that day's partition of runs
// (runs_YYYYMMDD, one UTC day, created by belfry_ensure_history_partitions) instead of runs.
//
// Addressed to runs, each call had to be planned for its parameters, since a plan made once
// and reused prunes no partition (an `= ANY(array)` on the partition key is not pruned at run
// time) and read every day's. Planning was 13 % of the completion's time and 7 % of the
// claim's in a 100K herd (pg_stat_statements, bench/results/README, stop 51). Addressed to the
// day's partition, a named statement is planned for the first few calls on a connection and
// then reused (PostgreSQL's generic plan: one table, found by key; withTransaction keeps it
// from reading the table sequentially), and an unnamed one plans one table instead of the
// partitioned one. PostgreSQL spent 10–13 % less CPU a run from due in 100K herds
// (bench/results/README, What limits it now, stop 52).
//
// A batch whose runs span two days, or whose day has no partition of its own (its runs are in
// runs_default), goes to runs, unnamed, planned per call as before. Whether a day has its
// partition, with exactly that day's bounds, is asked once per connection (again after a minute
// when it had none). A partition dropped since (retention: older than the longest retention)
// fails the statement with 42P01; the transaction then runs again on a new connection, which
// asks afresh (prepared.ts, markStale).
import { markStale, statement } from './prepared';
import type { NamedStatement, Queryable } from './types';

const DAY_MS = 86_400_000;
/** how long a connection goes on using runs for a day found without a partition of its own */
const RECHECK_MISSING_MS = 60_000;

/** The partition of runs a batch with these scheduled times lives in, by name, if they share a UTC day. */
export function runsDayPartitionName(times: readonly Date[]): string | null {
  const first = times[0];
  if (!first) return null;
  const day = Math.floor(first.getTime() / DAY_MS);
  for (const t of times) if (Math.floor(t.getTime() / DAY_MS) !== day) return null;
  return `runs_${new Date(day * DAY_MS).toISOString().slice(0, 10).replaceAll('-', '')}`;
}

/** per connection (or pool): partition name → whether it exists, and until when a "no" holds */
const known = new WeakMap<object, Map<string, { exists: boolean; recheckAt: number }>>();

// The partition's bound as PostgreSQL prints it, against the one belfry_ensure_history_partitions
// gives a day, both printed by this session (same TimeZone and DateStyle).
const PARTITION_SQL = `SELECT EXISTS (
  SELECT 1 FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
  WHERE i.inhparent = 'runs'::regclass AND c.oid = to_regclass($1::text)
    AND pg_get_expr(c.relpartbound, c.oid) = format('FOR VALUES FROM (%L) TO (%L)', $2::timestamptz, $3::timestamptz)
) AS exists`;

/**
 * The table a statement on the runs with these scheduled times should update: their day's
 * partition where it exists, else runs itself.
 */
export async function runsTableFor(db: Queryable, times: readonly Date[]): Promise<string> {
  const name = runsDayPartitionName(times);
  if (!name) return 'runs';
  let tables = known.get(db);
  if (!tables) {
    tables = new Map();
    known.set(db, tables);
  }
  const seen = tables.get(name);
  if (seen && (seen.exists || seen.recheckAt > Date.now())) return seen.exists ? name : 'runs';
  const day = Math.floor((times[0] as Date).getTime() / DAY_MS) * DAY_MS;
  const { rows } = await db.query<{ exists: boolean }>(PARTITION_SQL, [name, new Date(day), new Date(day + DAY_MS)]);
  const exists = rows[0]?.exists === true;
  tables.set(name, { exists, recheckAt: Date.now() + RECHECK_MISSING_MS });
  return exists ? name : 'runs';
}

/**
 * `err`, thrown by a statement on `table`: a partition that is gone (undefined_table) is
 * forgotten on this connection, and the error marked so that the transaction runs again.
 */
export function partitionGone(db: Queryable, table: string, err: unknown): unknown {
  if (table !== 'runs' && (err as { code?: unknown })?.code === '42P01') {
    known.get(db)?.delete(table);
    markStale(err);
  }
  return err;
}

/**
 * `text`, a statement that says `UPDATE runs r`, as it is sent for a given table: unnamed for
 * runs itself, and for one of its partitions addressed to it and named `name:partition`
 * where the transaction uses names (prepared.ts).
 */
export function onRunsTable(name: string, text: string): (db: Queryable, table: string) => string | NamedStatement {
  if (!text.includes('UPDATE runs r')) throw new Error(`${name} does not update runs`);
  const byTable = new Map<string, string>();
  return (db, table) => {
    if (table === 'runs') return text;
    let sql = byTable.get(table);
    if (sql === undefined) {
      sql = text.replace('UPDATE runs r', `UPDATE ${table} r`);
      byTable.set(table, sql);
    }
    return statement(db, `${name}:${table}`, sql);
  };
}
