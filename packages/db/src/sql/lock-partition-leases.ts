// Fencing: inside a scheduler transaction, locks (FOR SHARE) the lease rows this node holds
// with the epochs it believes current. A takeover must UPDATE those rows, so it waits for
// this transaction; and a node whose epoch is stale gets nothing back and writes nothing.
import type { Queryable } from './types';

export async function lockPartitionLeases(
  tx: Queryable,
  nodeId: string,
  held: { partition: number; epoch: string }[],
): Promise<number[]> {
  if (!held.length) return [];
  const { rows } = await tx.query<{ partition: number }>(
    `SELECT pl.partition FROM partition_leases pl
     JOIN unnest($1::int[], $2::bigint[]) AS h(partition, epoch) ON h.partition = pl.partition AND h.epoch = pl.epoch
     WHERE pl.owner = $3 AND pl.expires_at > now()
     FOR SHARE OF pl`,
    [held.map((h) => h.partition), held.map((h) => h.epoch), nodeId],
  );
  return rows.map((r) => r.partition);
}
