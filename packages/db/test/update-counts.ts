// How many updates of a table (summed over its partitions) were made, and how many of them were
// HOT (the new row version on the same page, no new index entries), as this backend's statistics
// say once flushed: the tests of herds whose updates must stay in place read it before and after.
import type pg from 'pg';

export async function updateCounts(client: pg.Client, table: string): Promise<{ updated: number; hot: number }> {
  await client.query('SELECT pg_stat_force_next_flush()');
  const { rows } = await client.query<{ updated: string; hot: string }>(
    `SELECT coalesce(sum(n_tup_upd), 0)::text AS updated, coalesce(sum(n_tup_hot_upd), 0)::text AS hot
       FROM pg_stat_user_tables
      WHERE relid = $1::regclass OR relid IN (SELECT inhrelid FROM pg_inherits WHERE inhparent = $1::regclass)`,
    [table],
  );
  return { updated: Number(rows[0]?.updated), hot: Number(rows[0]?.hot) };
}
