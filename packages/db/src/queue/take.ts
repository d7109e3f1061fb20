// Takes due messages off a run queue for a claim: one statement in the caller's transaction,
// which also claims the messages' runs, so a rollback puts the messages back.
//
// It replaces pg-boss's fetch followed by deleteJob in the same transaction. The fetch's UPDATE
// to 'active' (a new row version with new entries in every index, since state is indexed) was
// wasted: the message was deleted before commit anyway. The selection is exactly pg-boss 12's
// fetchNextJob for a standard-policy queue (QUEUE_OPTIONS) without fetch options: the waiting,
// unblocked messages whose start time has come, highest priority then oldest first, skipping
// those another transaction holds; the same (name, priority DESC, created_on, start_after)
// partial index (job_i11 of the queue's partition) serves it.
//
// A message may carry several runs (RunBatchMessage, enqueue.ts). The limit counts runs: the
// messages that fit whole are deleted, and of the first one that does not, the runs that fit
// are taken and the rest stay in it, still first in line (its priority and creation time kept).
import type { Queryable } from '../sql/types';
import type { RunBatchMessage, RunMessage } from './enqueue';

/** One run taken off its queue: what pg-boss's fetch returned, as far as claims use it. */
export interface TakenMessage {
  /** the message's id (runs of one message share it) */
  id: string;
  data: RunMessage;
  /** pg-boss's attempt count, as its fetch would have reported it */
  retryCount: number;
}

/**
 * Takes up to `limit` due runs of `queue`, in pg-boss's fetch order, deleting the messages that
 * carried them (or, for the one taken in part, the runs taken from it). Must run inside the
 * transaction that claims the runs.
 */
export async function takeMessages(db: Queryable, queue: string, limit: number): Promise<TakenMessage[]> {
  // Through pgboss.job, not the partition by name: `name = $1` prunes to the queue's partition
  // (job_common for every queue created with QUEUE_OPTIONS) on the scan, the delete and the
  // update. The ids reach the DELETE and the UPDATE as arrays (InitPlans), as in pg-boss's own
  // fetch with group concurrency: each is then a primary-key probe per message whatever the
  // planner guesses for LIMIT $2 (a generic plan joined `next` against the whole queue instead).
  // `limit` messages always hold at least `limit` runs. The final ORDER BY only sorts the
  // returned rows: DELETE ... RETURNING promises no order.
  const { rows } = await db.query<{
    id: string;
    data: RunMessage | RunBatchMessage;
    retry_count: number;
    /** runs taken from a message that carries several: its first `take` (null: all) */
    take: number | null;
  }>(
    `WITH next AS (
       SELECT j.id, j.data, j.priority, j.created_on, COALESCE(jsonb_array_length(j.data->'runIds'), 1) AS n
         FROM pgboss.job j
        WHERE j.name = $1 AND j.state < 'active' AND NOT j.blocked AND j.start_after <= pgboss.job_now()
        ORDER BY j.priority DESC, j.created_on
        LIMIT $2
          FOR UPDATE OF j SKIP LOCKED
     ), counted AS (
       SELECT id, data, priority, created_on, n,
              sum(n) OVER (ORDER BY priority DESC, created_on, id ROWS UNBOUNDED PRECEDING) - n AS before
         FROM next
     ), whole AS (
       DELETE FROM pgboss.job j
        WHERE j.name = $1 AND j.id = ANY (ARRAY(SELECT id FROM counted WHERE before + n <= $2))
       RETURNING j.id, j.data, j.priority, j.created_on,
                 CASE WHEN j.started_on IS NOT NULL THEN j.retry_count + 1 ELSE j.retry_count END AS retry_count
     ), cut AS (
       SELECT id, data, priority, created_on, ($2 - before)::int AS take FROM counted WHERE before < $2 AND before + n > $2
     ), rest AS (
       UPDATE pgboss.job j
          SET data = jsonb_set(j.data, '{runIds}',
                (SELECT jsonb_agg(e.run ORDER BY e.i) FROM jsonb_array_elements(j.data->'runIds') WITH ORDINALITY AS e(run, i)
                  WHERE e.i > c.take))
         FROM cut c
        WHERE j.name = $1 AND j.id = ANY (ARRAY(SELECT id FROM cut)) AND j.id = c.id
       RETURNING j.id, CASE WHEN j.started_on IS NOT NULL THEN j.retry_count + 1 ELSE j.retry_count END AS retry_count
     )
     SELECT id, data, priority, created_on, retry_count, NULL::int AS take FROM whole
     UNION ALL
     SELECT c.id, c.data, c.priority, c.created_on, r.retry_count, c.take FROM cut c JOIN rest r ON r.id = c.id
     ORDER BY priority DESC, created_on`,
    [queue, limit],
  );
  const taken: TakenMessage[] = [];
  for (const row of rows) {
    const { data } = row;
    if (!('runIds' in data)) {
      taken.push({ id: row.id, data, retryCount: row.retry_count });
      continue;
    }
    const runIds = row.take === null ? data.runIds : data.runIds.slice(0, row.take);
    for (const runId of runIds) {
      taken.push({
        id: row.id,
        data: { runId, scheduledTime: data.scheduledTime, ...(data.overlap ? { overlap: true as const } : {}) },
        retryCount: row.retry_count,
      });
    }
  }
  return taken;
}
