// Take-and-claim, in ONE transaction: due messages are taken off one or more queues (deleted:
// the run row, not the message, is the history), overlap-skip runs whose previous run still runs
// are recorded skipped, and the rest are claimed under this worker's lease — so a crash at any
// point leaves either the messages (the deletes rolled back) or the leased runs (for the reaper),
// never neither.
//
// Several queues in one transaction: a claim costs mostly per transaction, not per run (BEGIN,
// planning and starting the claim's statement, COMMIT), and a node's slots come back a
// completion batch at a time, spread over many tenants' queues, each with room for a few runs.
// One claim per queue paid that for every one of them; the queues' takes are one statement a
// round too (take.ts, takeFromQueues). What the queues share is the transaction:
// a failure anywhere in it (the database away) puts every queue's messages back, and the pool
// then pauses all claims for a moment (claim-pause.ts), as it did after one queue's failed claim;
// an overlap-skip check that waits for its job's row lock (a scheduler scan or an edit holds it
// for milliseconds) holds the other queues' messages as long.
import {
  claimRuns,
  type ClaimedRun,
  skipOverlappingRuns,
  takeFromQueues,
  type QueueTake,
  withTransaction,
} from '@belfry/db';
import type pg from 'pg';

export interface ClaimDeps {
  pool: pg.Pool;
  workerId: string;
  runLeaseMs: number;
}

export interface ClaimResult {
  /** messages taken off each queue, in the order given (fewer than its room: the queue is drained for now) */
  fetched: number[];
  claimed: ClaimedRun[];
  /** runs recorded as skipped (overlap) instead */
  skipped: number;
}

export async function claimFromQueues(deps: ClaimDeps, queues: QueueTake[]): Promise<ClaimResult> {
  const result: ClaimResult = { fetched: queues.map(() => 0), claimed: [], skipped: 0 };
  await withTransaction(
    deps.pool,
    async (client) => {
      // (run again on another connection if this one's named statements went stale)
      result.skipped = 0;
      result.claimed = [];
      const taken = await takeFromQueues(client, queues);
      result.fetched = taken.map((t) => t.length);
      const jobs = taken.flat();
      if (!jobs.length) return;
      const ids = jobs.map((j) => j.data.runId);
      const times = jobs.map((j) => new Date(j.data.scheduledTime));
      // Only scheduled runs of overlap-skip jobs can be skipped; most batches have none.
      const checked = jobs.filter((j) => j.data.overlap);
      if (checked.length) {
        const skipped = await skipOverlappingRuns(
          client,
          checked.map((j) => j.data.runId),
          checked.map((j) => new Date(j.data.scheduledTime)),
        );
        result.skipped = skipped.length;
      }
      result.claimed = await claimRuns(client, deps.workerId, deps.runLeaseMs, ids, times);
    },
    { maxTries: 1, namedStatements: true },
  );
  return result;
}
