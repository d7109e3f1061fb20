// The jobs table as services read it, and its mapping to the public Job shape. One SELECT
// list so every read of a job (get, list, after a write) renders identically.
//
// nextRunAt is the next occurrence that has not started: the earliest scheduled run the
// scheduler materialized ahead of time and no worker has started yet (pending, or claimed
// ahead and waiting for its time; found among the job's open runs, listed in open_runs), else
// the schedule entry (the next occurrence not materialized yet, which only exists while the
// job is active).
//
// status is the job's as the API shows it (jobStatusSql): a one-off is stored `completed` when
// its occurrence is materialized and shown `active` while that run is open.
import { jobStatusSql, openRunOf, type ScheduleColumns } from '@belfry/db';
import { type StoredTarget, targetView } from '@belfry/handlers/schemas';
import type { JobView } from '../schemas/resources';
import { sortTsSql } from './pagination';

export interface JobRow extends ScheduleColumns {
  id: string;
  tenant_id: string;
  name: string;
  /** every write-only field masked as '***' (or, in rows written before sealing, in the clear) */
  target: StoredTarget;
  /** the target's write-only fields, sealed (null: none, or a row written before sealing) */
  target_secrets: Buffer | null;
  payload: unknown;
  retry_max_attempts: number;
  retry_initial_delay_seconds: number;
  retry_max_delay_seconds: number;
  timeout_seconds: number;
  priority: JobView['priority'];
  misfire_policy: JobView['misfirePolicy'];
  overlap_policy: JobView['overlapPolicy'];
  jitter_seconds: number;
  /** as shown (jobStatusSql), not as stored: a job stored `completed` with a scheduled run open is `active` */
  status: JobView['status'];
  /** as stored: what the tenant's usage counters count (a job's rate while stored `active`) */
  stored_status: JobView['status'];
  partition: number;
  version: number;
  created_at: Date;
  updated_at: Date;
  deleted_at: Date | null;
  alerts: JobView['alerts'] | null;
  next_run_at: Date | null;
  sort_ts: string;
}

export const JOB_SELECT = `
  SELECT j.id, j.tenant_id, j.name, j.schedule_type, j.cron_expression, j.timezone, j.run_at, j.every_seconds,
         j.anchor_at, j.target, j.target_secrets, j.payload, j.retry_max_attempts, j.retry_initial_delay_seconds,
         j.retry_max_delay_seconds, j.timeout_seconds, j.priority, j.misfire_policy, j.overlap_policy, j.jitter_seconds,
         ${jobStatusSql('j')} AS status, j.status AS stored_status,
         j.partition, j.version, j.created_at, j.updated_at, j.deleted_at, j.alerts,
         CASE WHEN j.status <> 'paused' THEN LEAST(j.next_run_at, (
           SELECT min(r.scheduled_time) FROM runs r
            WHERE ${openRunOf('r', 'j.id')} AND r.trigger = 'schedule'
              AND (r.status = 'pending' OR (r.status = 'running' AND COALESCE(r.due_at, r.scheduled_time) > now())))) END AS next_run_at,
         ${sortTsSql('j.created_at')} AS sort_ts
    FROM jobs j`;

export function scheduleOf(row: JobRow): JobView['schedule'] {
  switch (row.schedule_type) {
    case 'once':
      return { type: 'once', runAt: (row.run_at as Date).toISOString() };
    case 'cron':
      return { type: 'cron', expression: row.cron_expression as string, timezone: row.timezone };
    case 'interval':
      return { type: 'interval', everySeconds: row.every_seconds as number };
  }
}

/** The spec the scheduler evaluates for this job (intervals count from anchor_at). */
export { specOf } from '@belfry/db';

export function toJobView(row: JobRow): JobView {
  return {
    id: row.id,
    name: row.name,
    schedule: scheduleOf(row),
    target: targetView(row.target),
    payload: row.payload ?? null,
    retry: {
      maxAttempts: row.retry_max_attempts,
      initialDelaySeconds: row.retry_initial_delay_seconds,
      maxDelaySeconds: row.retry_max_delay_seconds,
    },
    timeoutSeconds: row.timeout_seconds,
    priority: row.priority,
    misfirePolicy: row.misfire_policy,
    overlapPolicy: row.overlap_policy,
    jitterSeconds: row.jitter_seconds,
    status: row.status,
    nextRunAt: row.status === 'active' && row.next_run_at ? row.next_run_at.toISOString() : null,
    ...(row.alerts ? { alerts: row.alerts } : {}),
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}
