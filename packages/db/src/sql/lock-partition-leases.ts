// Fencing: inside a scheduler transaction, locks the lease rows this node holds with the epochs
// it believes current, and answers the partitions whose (owner, epoch) still hold: a node whose
// epoch is stale gets nothing back and writes nothing for those partitions.
//
// The lock is FOR KEY SHARE, the weakest that keeps a takeover out. A takeover bumps epoch, and
// since epoch is a column of a unique, non-partial, non-expression index
// (partition_leases_partition_epoch_key, migration 20261201073000) PostgreSQL takes FOR UPDATE
// for any UPDATE that changes it, which waits for this transaction; the lease keeper's acquire
// also says FOR UPDATE SKIP LOCKED, so it passes such a row by until this transaction ends. What
// KEY SHARE no longer holds off is the lease keeper's renewal (FOR NO KEY UPDATE: only
// expires_at changes) and release (owner NULL, epoch unchanged). FOR SHARE did, and under a herd
// a renewal waited up to 14 s behind scheduler batches, for leases of 15 s. A renewal or release
// that commits while this transaction is open leaves the fence intact: PostgreSQL keeps the key
// share lock on the row's new version, and whoever acquires the partition next must bump epoch.
//
// Rows are locked in partition order, as the lease keeper's statements lock them: the same rows
// locked in two orders deadlocked under load (a renewal against a scan, when they conflicted).
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
     FOR KEY SHARE OF pl`,
    [held.map((h) => h.partition), held.map((h) => h.epoch), nodeId],
  );
  return rows.map((r) => r.partition);
}
