// Fencing: inside a scheduler transaction, locks (FOR SHARE) the lease rows this node holds
// with the epochs it believes current. A takeover must UPDATE those rows, so it waits for
// this transaction; and a node whose epoch is stale gets nothing back and writes nothing.
// Rows are locked in partition order, as the lease keeper's renewal and release lock them: the
// same rows locked in two orders deadlocked under load (a renewal against a scan).
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
     ORDER BY pl.partition
     FOR SHARE OF pl`,
    [held.map((h) => h.partition), held.map((h) => h.epoch), nodeId],
  );
  return rows.map((r) => r.partition);
}
