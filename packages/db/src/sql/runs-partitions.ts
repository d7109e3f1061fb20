// The engine's claim and completion update runs by primary key, a batch at a time, and a
// batch's runs nearly always share one day: those statements update that day's partition of
// runs (runs_YYYYMMDD, one UTC day, created by belfry_ensure_history_partitions) instead of runs.
//
// Addressed to runs, a statement has to be planned at every call: a plan made once and reused
// prunes no partition (an `= ANY(array)` on the partition key is pruned only when planning for
// the array) and reads every day's. Addressed to the day's partition, a named statement is
// planned for its first five calls on a connection and then reused, as a plan of one table whose
// rows are found by key (withTransaction keeps it off sequential scans); PostgreSQL re-plans it
// after each ANALYZE of the partition. Planning was the part worth saving: bench/results/README,
// What limits it now, stop 52.
//
// A batch whose runs span two days, or whose day has no partition of its own (its runs are in
// runs_default), goes to runs, unnamed, planned per call. Whether a day has its partition, with
// exactly that day's bounds, is asked once per connection (again after a minute when it had
// none). A partition dropped since (retention drops, never detaches) fails the statement with
// undefined_table naming it; the transaction then runs again on a new connection, which asks
// afresh (prepared.ts, markStale).
import { markStale, statement } from './prepared';
import type { NamedStatement, Queryable } from './types';

const DAY_MS = 86_400_000;
/** how long a connection goes on using runs for a day found without a partition of its own */
const RECHECK_MISSING_MS = 60_000;

/** The UTC day (ms since the epoch) all of `times` fall on, or null. */
function dayOf(times: readonly Date[]): number | null {
  const first = times[0];
  if (!first) return null;
  const day = Math.floor(first.getTime() / DAY_MS);
  for (const t of times) if (Math.floor(t.getTime() / DAY_MS) !== day) return null;
  return day * DAY_MS;
}

function partitionName(day: number): string {
  return `runs_${new Date(day).toISOString().slice(0, 10).replaceAll('-', '')}`;
}

/** The partition of runs a batch with these scheduled times lives in, by name, if they share a UTC day. */
export function runsDayPartitionName(times: readonly Date[]): string | null {
  const day = dayOf(times);
  return day === null ? null : partitionName(day);
}

/** per connection (or pool): partition name → the table to update for its day, and until when that holds */
const known = new WeakMap<object, Map<string, { table: string; until: number }>>();

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
  const day = dayOf(times);
  if (day === null) return 'runs';
  const name = partitionName(day);
  let tables = known.get(db);
  if (!tables) {
    tables = new Map();
    known.set(db, tables);
  }
  const seen = tables.get(name);
  if (seen && seen.until > Date.now()) return seen.table;
  const { rows } = await db.query<{ exists: boolean }>(PARTITION_SQL, [name, new Date(day), new Date(day + DAY_MS)]);
  // a partition found holds until a statement finds it gone (noteGonePartition)
  const answer =
    rows[0]?.exists === true
      ? { table: name, until: Infinity }
      : { table: 'runs', until: Date.now() + RECHECK_MISSING_MS };
  tables.set(name, answer);
  return answer.table;
}

/**
 * `err` was thrown by a statement on `table`. If it says that this partition of runs does not
 * exist (dropped since it was found), the partition is forgotten on this connection and the
 * error marked so that withTransaction runs the transaction again on a new connection.
 */
export function noteGonePartition(db: Queryable, table: string, err: unknown): void {
  const e = err as { code?: unknown; message?: unknown } | null;
  if (table === 'runs' || e?.code !== '42P01' || typeof e.message !== 'string') return;
  if (!e.message.includes(`"${table}"`)) return;
  known.get(db)?.delete(table);
  markStale(err);
}

/**
 * `text`, a statement that says `UPDATE runs r` once, run for a batch with the given scheduled
 * times: on runs itself unnamed, on their day's partition named `name:partition` where the
 * transaction uses names (prepared.ts).
 */
export function updateOfRuns<R extends object>(
  name: string,
  text: string,
): (db: Queryable, times: readonly Date[], values: unknown[]) => Promise<R[]> {
  if (text.split('UPDATE runs r').length !== 2) throw new Error(`${name} must say "UPDATE runs r" once`);
  const byTable = new Map<string, string>();
  const sqlFor = (db: Queryable, table: string): string | NamedStatement => {
    if (table === 'runs') return text;
    let sql = byTable.get(table);
    if (sql === undefined) {
      sql = text.replace('UPDATE runs r', `UPDATE ${table} r`);
      byTable.set(table, sql);
    }
    return statement(db, `${name}:${table}`, sql);
  };
  return async (db, times, values) => {
    const table = await runsTableFor(db, times);
    try {
      return (await db.query<R>(sqlFor(db, table), values)).rows;
    } catch (err) {
      noteGonePartition(db, table, err);
      throw err;
    }
  };
}
