// The reaper: runs whose worker stopped heartbeating (lease expired) are taken back. The lost
// attempt is closed as failed; the run is retried at once, or goes dead when attempts are
// exhausted. Row locks with SKIP LOCKED let every node reap without doing it twice.
import type { Priority } from '@belfry/core';
import type { Queryable } from './types';

export interface ReapedRun {
  id: string;
  tenant_id: string;
  job_id: string;
  priority: Priority;
  scheduled_time: Date;
  status: 'failed' | 'dead';
  worker_id: string | null;
}

export async function reapExpiredRuns(tx: Queryable, limit: number): Promise<ReapedRun[]> {
  const { rows } = await tx.query<ReapedRun>(
    `WITH expired AS (
       SELECT r.id, r.scheduled_time, r.attempt, r.worker_id
       FROM runs r
       WHERE r.status = 'running' AND r.lease_expires_at < now()
       ORDER BY r.lease_expires_at
       LIMIT $1
       FOR UPDATE OF r SKIP LOCKED
     ), moved AS (
       UPDATE runs r
       SET status = CASE WHEN r.attempt >= j.retry_max_attempts THEN 'dead' ELSE 'failed' END,
           finished_at = CASE WHEN r.attempt >= j.retry_max_attempts THEN now() END,
           next_attempt_at = CASE WHEN r.attempt >= j.retry_max_attempts THEN NULL ELSE now() END,
           lease_expires_at = NULL,
           last_error = 'lease expired: worker ' || coalesce(e.worker_id, '?') || ' stopped heartbeating'
       FROM expired e, jobs j
       WHERE r.id = e.id AND r.scheduled_time = e.scheduled_time AND j.id = r.job_id
       RETURNING r.id, r.tenant_id, r.job_id, r.priority, r.scheduled_time, r.status, e.worker_id, e.attempt
     ), closed AS (
       UPDATE run_attempts a SET status = 'failed', finished_at = now(),
              error = 'lease expired: worker ' || coalesce(m.worker_id, '?') || ' stopped heartbeating'
       FROM moved m
       WHERE a.run_id = m.id AND a.scheduled_time = m.scheduled_time AND a.attempt = m.attempt AND a.status = 'running'
     )
     SELECT id, tenant_id, job_id, priority, scheduled_time, status, worker_id FROM moved`,
    [limit],
  );
  return rows;
}
