// Takes due messages off a run queue for a claim: one DELETE ... RETURNING in the caller's
// transaction, which also claims the messages' runs, so a rollback puts the messages back.
//
// It replaces pg-boss's fetch followed by deleteJob in the same transaction. The fetch's UPDATE
// to 'active' (a new row version with new entries in every index, since state is indexed) was
// wasted: the message was deleted before commit anyway. The selection is exactly pg-boss 12's
// fetchNextJob for a standard-policy queue (QUEUE_OPTIONS) without fetch options: the waiting,
// unblocked messages whose start time has come, highest priority then oldest first, skipping
// those another transaction holds; the same (name, priority DESC, created_on, start_after)
// partial index (job_i11 of the queue's partition) serves it.
import type { Queryable } from '../sql/types';
import type { RunMessage } from './enqueue';

/** A message taken off its queue: what pg-boss's fetch returned, as far as claims use it. */
export interface TakenMessage<T = RunMessage> {
  id: string;
  data: T;
  /** pg-boss's attempt count, as its fetch would have reported it */
  retryCount: number;
}

/**
 * Deletes and returns up to `limit` due messages of `queue`, in pg-boss's fetch order. Must run
 * inside the transaction that claims their runs.
 */
export async function takeMessages<T = RunMessage>(
  db: Queryable,
  queue: string,
  limit: number,
): Promise<TakenMessage<T>[]> {
  // Through pgboss.job, not the partition by name: `name = $1` prunes to the queue's partition
  // (job_common for every queue created with QUEUE_OPTIONS) on both the scan and the delete.
  // The chosen ids reach the DELETE as one array (an InitPlan), as in pg-boss's own fetch with
  // group concurrency: the delete is then a primary-key probe per message whatever the planner
  // guesses for LIMIT $2 (a generic plan joined `next` against the whole queue instead).
  // The final ORDER BY only sorts the returned rows: DELETE ... RETURNING promises no order.
  const { rows } = await db.query<TakenMessage<T>>(
    `WITH next AS (
       SELECT j.id
         FROM pgboss.job j
        WHERE j.name = $1 AND j.state < 'active' AND NOT j.blocked AND j.start_after <= pgboss.job_now()
        ORDER BY j.priority DESC, j.created_on
        LIMIT $2
          FOR UPDATE OF j SKIP LOCKED
     ), taken AS (
       DELETE FROM pgboss.job j
        WHERE j.name = $1 AND j.id = ANY (ARRAY(SELECT id FROM next))
       RETURNING j.id, j.data, j.priority, j.created_on,
                 CASE WHEN j.started_on IS NOT NULL THEN j.retry_count + 1 ELSE j.retry_count END AS retry_count
     )
     SELECT id, data, retry_count AS "retryCount" FROM taken ORDER BY priority DESC, created_on`,
    [queue, limit],
  );
  return rows;
}
