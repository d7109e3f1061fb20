// The due scan: schedule entries of the given partitions due within the look-ahead window,
// with what is needed to plan their occurrences. Rows are locked; rows another scheduler has
// locked are skipped, so two schedulers briefly sharing a partition never double-materialize.
//
// Each partition is read on its own (a LATERAL index scan of (partition, next_run_at) with a
// small LIMIT), so a scan costs O(partitions + batch) whatever the table holds: one ordered
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
    `SELECT se.job_id, se.tenant_id, se.partition, se.next_run_at,
            j.schedule_type, j.cron_expression, j.timezone, j.run_at, j.every_seconds, j.anchor_at,
            j.priority, j.misfire_policy, j.overlap_policy, j.jitter_seconds, j.target->>'type' AS target_type,
            j.target->>'queue' AS target_queue, now() AS db_now
     FROM unnest($1::int[]) AS p(partition)
     CROSS JOIN LATERAL (
       SELECT s.job_id, s.tenant_id, s.partition, s.next_run_at
       FROM schedule_entries s
       WHERE s.partition = p.partition
         AND s.next_run_at <= now() + make_interval(secs => $2::float8 / 1000)
       ORDER BY s.next_run_at
       LIMIT $3
       FOR UPDATE SKIP LOCKED
     ) se
     JOIN jobs j ON j.id = se.job_id`,
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
