// The due scan: schedule entries of the given partitions due within the look-ahead window,
// with what is needed to plan their occurrences. Rows are locked; rows another scheduler has
// locked are skipped, so two schedulers briefly sharing a partition never double-materialize.
import type { Queryable } from './types';

export interface DueEntry {
  job_id: string;
  tenant_id: string;
  partition: number;
  next_run_at: Date;
  schedule_type: 'once' | 'cron' | 'interval';
  cron_expression: string | null;
  timezone: string;
  run_at: Date | null;
  every_seconds: number | null;
  anchor_at: Date;
  priority: 'high' | 'normal' | 'low';
  misfire_policy: 'run_once' | 'catch_up' | 'skip';
  overlap_policy: 'allow' | 'skip';
  db_now: Date;
}

export async function selectDueEntries(
  tx: Queryable,
  partitions: number[],
  lookaheadMs: number,
  limit: number,
): Promise<DueEntry[]> {
  if (!partitions.length) return [];
  const { rows } = await tx.query<DueEntry>(
    `SELECT se.job_id, se.tenant_id, se.partition, se.next_run_at,
            j.schedule_type, j.cron_expression, j.timezone, j.run_at, j.every_seconds, j.anchor_at,
            j.priority, j.misfire_policy, j.overlap_policy, now() AS db_now
     FROM schedule_entries se
     JOIN jobs j ON j.id = se.job_id
     WHERE se.partition = ANY($1::int[])
       AND se.next_run_at <= now() + make_interval(secs => $2::float8 / 1000)
     ORDER BY se.next_run_at
     LIMIT $3
     FOR UPDATE OF se SKIP LOCKED`,
    [partitions, lookaheadMs, limit],
  );
  return rows;
}
