// Take-and-claim for one queue, in ONE transaction: up to `room` due messages are taken off the
// queue (deleted: the run row, not the message, is the history), overlap-skip runs whose previous
// run still runs are recorded skipped, and the rest are claimed under this worker's lease — so a
// crash at any point leaves either the messages (the delete rolled back) or the leased runs (for
// the reaper), never neither.
import { claimRuns, type ClaimedRun, skipOverlappingRuns, takeMessages, withTransaction } from '@belfry/db';
import type pg from 'pg';

export interface ClaimDeps {
  pool: pg.Pool;
  workerId: string;
  runLeaseMs: number;
}

export interface ClaimResult {
  /** messages taken off the queue (fewer than asked: the queue is drained for now) */
  fetched: number;
  claimed: ClaimedRun[];
  /** runs recorded as skipped (overlap) instead */
  skipped: number;
}

export async function claimFromQueue(deps: ClaimDeps, queue: string, room: number): Promise<ClaimResult> {
  const result: ClaimResult = { fetched: 0, claimed: [], skipped: 0 };
  await withTransaction(
    deps.pool,
    async (client) => {
      // (run again on another connection if this one's named statements went stale)
      result.skipped = 0;
      result.claimed = [];
      const jobs = await takeMessages(client, queue, room);
      result.fetched = jobs.length;
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
