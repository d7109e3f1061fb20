// Creates manual and replay runs: the run rows and their pg-boss messages are written on
// the same client inside the caller's transaction, so a crash or an error leaves neither
// (a run without a message would never execute; a message without a run is dropped).
import { newId, type Priority } from '@belfry/core';
import { enqueueRuns, pgExecutor, type QueueClient } from '@belfry/db';
import { type RouteFields, routeOf } from '@belfry/handlers/schemas';
import type pg from 'pg';
import type { RunRow } from './run-rows';
import { RUN_COLUMNS } from './run-rows';

export interface NewRun {
  jobId: string;
  priority: Priority;
  /** the job's target (its kind decides the queue) */
  target: RouteFields;
  replayOf: string | null;
}

/**
 * Inserts runs requested at `now` (their scheduled time, which their ids encode) and
 * enqueues them. `client` must be inside BEGIN.
 */
export async function insertAndEnqueueRuns(
  client: pg.PoolClient,
  queue: QueueClient,
  tenantId: string,
  now: Date,
  runs: NewRun[],
): Promise<RunRow[]> {
  if (!runs.length) return [];
  const ids = runs.map(() => newId('run', now));
  const { rows } = await client.query<RunRow>(
    `INSERT INTO runs AS r (id, tenant_id, job_id, scheduled_time, status, attempt, trigger, replay_of, priority, created_at)
     SELECT u.id, $1, u.job_id, $2, 'pending', 0, CASE WHEN u.replay_of IS NULL THEN 'manual' ELSE 'replay' END,
            u.replay_of, u.priority, $2
       FROM unnest($3::text[], $4::text[], $5::text[], $6::text[]) AS u(id, job_id, replay_of, priority)
     RETURNING ${RUN_COLUMNS}, '' AS sort_ts`,
    [tenantId, now, ids, runs.map((r) => r.jobId), runs.map((r) => r.replayOf), runs.map((r) => r.priority)],
  );
  // listed as open (open-runs.ts in @belfry/db), in the same transaction
  await client.query(
    `INSERT INTO open_runs (job_id, scheduled_time, run_id) SELECT u.job_id, $1, u.id FROM unnest($2::text[], $3::text[]) AS u(id, job_id)`,
    [now, rows.map((r) => r.id), rows.map((r) => r.job_id)],
  );
  await enqueueRuns(
    queue,
    pgExecutor(client),
    rows.map((r, i) => ({
      runId: r.id,
      route: routeOf((runs[i] as NewRun).target, tenantId, r.priority),
      scheduledTime: r.scheduled_time,
    })),
  );
  return rows;
}
