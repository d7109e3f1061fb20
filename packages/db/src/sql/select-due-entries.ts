// The due scan: jobs of the given partitions whose next occurrence (jobs.next_run_at) is due
// within the look-ahead window, with what is needed to plan their occurrences. Rows are locked
// (FOR NO KEY UPDATE: the lock an UPDATE of next_run_at takes, which leaves foreign keys to the
// job alone); rows another scheduler or an API change holds are skipped, so two schedulers
// briefly sharing a partition never double-materialize, and a job being changed is taken by a
// later scan.
//
// Each partition is read on its own (a LATERAL scan of jobs_due_idx, (partition, next_run_at)
// over the jobs that have a next occurrence, with a small LIMIT), so a scan costs O(partitions + batch) whatever the table holds: one ordered
// scan over all partitions would read and sort every due row of them (a 100K herd meant
// sorting ~50K rows per 1,000-row batch). It also makes every partition progress at the same
// pace through a herd.
import type { MisfirePolicy, OverlapPolicy, Priority } from '@belfry/core';
import type { ScheduleColumns } from '../schedule-spec';
import type { Queryable } from './types';

export interface DueEntry extends ScheduleColumns {
  job_id: string;
  tenant_id: string;
  partition: number;
  next_run_at: Date;
  priority: Priority;
  misfire_policy: MisfirePolicy;
  overlap_policy: OverlapPolicy;
  /** each occurrence starts at its scheduled time plus an offset in [0, jitter_seconds) */
  jitter_seconds: number;
  /** the target's routing fields (its kind, and a pull target's queue): where its runs are queued */
  target_type: string;
  target_queue: string | null;
  db_now: Date;
}

export interface DueScan {
  entries: DueEntry[];
  /** some partition had more due entries than this scan took: scan again at once */
  more: boolean;
}

export async function selectDueEntries(
  tx: Queryable,
  partitions: number[],
  lookaheadMs: number,
  limit: number,
): Promise<DueScan> {
  if (!partitions.length) return { entries: [], more: false };
  const perPartition = Math.max(1, Math.ceil(limit / partitions.length));
  const { rows } = await tx.query<DueEntry>(
    `SELECT j.*, now() AS db_now
     FROM unnest($1::int[]) AS p(partition)
     CROSS JOIN LATERAL (
       SELECT s.id AS job_id, s.tenant_id, s.partition, s.next_run_at,
              s.schedule_type, s.cron_expression, s.timezone, s.run_at, s.every_seconds, s.anchor_at,
              s.priority, s.misfire_policy, s.overlap_policy, s.jitter_seconds, s.target->>'type' AS target_type,
              s.target->>'queue' AS target_queue
       FROM jobs s
       WHERE s.partition = p.partition AND s.next_run_at IS NOT NULL
         AND s.next_run_at <= now() + make_interval(secs => $2::float8 / 1000)
       ORDER BY s.next_run_at
       LIMIT $3
       FOR NO KEY UPDATE SKIP LOCKED
     ) j`,
    [partitions, lookaheadMs, perPartition],
  );
  const perPartitionCount = new Map<number, number>();
  let more = false;
  for (const r of rows) {
    const n = (perPartitionCount.get(r.partition) ?? 0) + 1;
    perPartitionCount.set(r.partition, n);
    if (n >= perPartition) more = true;
  }
  return { entries: rows, more };
}
