// The reaper's first step: running runs whose lease expired (their worker died or stopped
// heartbeating), locked, with what deciding their retry takes. Row locks with SKIP LOCKED let
// every node reap without two taking the same run.
import type { Priority } from '@belfry/core';
import type { Queryable } from './types';

export interface ExpiredRun {
  id: string;
  scheduled_time: Date;
  tenant_id: string;
  job_id: string;
  priority: Priority;
  attempt: number;
  worker_id: string | null;
  retry_max_attempts: number;
  retry_initial_delay_seconds: number;
  retry_max_delay_seconds: number;
  /** the target's routing fields, for the retry's queue */
  target_type: string;
  target_queue: string | null;
  db_now: Date;
}

export async function selectExpiredRuns(tx: Queryable, limit: number): Promise<ExpiredRun[]> {
  const { rows } = await tx.query<ExpiredRun>(
    `SELECT r.id, r.scheduled_time, r.tenant_id, r.job_id, r.priority, r.attempt, r.worker_id,
            j.retry_max_attempts, j.retry_initial_delay_seconds, j.retry_max_delay_seconds,
            j.target->>'type' AS target_type, j.target->>'queue' AS target_queue, now() AS db_now
       FROM runs r JOIN jobs j ON j.id = r.job_id
      WHERE r.status = 'running' AND r.lease_expires_at < now()
      ORDER BY r.lease_expires_at
      LIMIT $1
      FOR UPDATE OF r SKIP LOCKED`,
    [limit],
  );
  return rows;
}
