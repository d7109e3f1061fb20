// What the queues hold, message by message: for tests and diagnostics, never the hot path.
import type { Queryable } from '../sql/types';

export interface QueuedMessage {
  /** the queue's name (see names.ts) */
  name: string;
  runId: string;
  scheduledTime: string;
  startAfter: Date;
  /** pg-boss's state: 'created' and 'retry' wait (claims delete messages, never make them 'active') */
  state: string;
}

export interface QueuedMessageFilter {
  /** only the messages of these runs */
  runIds?: string[];
  /** only the messages of this job's runs */
  jobId?: string;
  /** only messages still waiting to be fetched */
  waitingOnly?: boolean;
}

/** Messages of every run queue (or those the filter names), earliest start_after first. */
export async function queuedMessages(db: Queryable, filter: QueuedMessageFilter = {}): Promise<QueuedMessage[]> {
  const { rows } = await db.query<QueuedMessage>(
    `SELECT j.name, j.data->>'runId' AS "runId", j.data->>'scheduledTime' AS "scheduledTime",
            j.start_after AS "startAfter", j.state::text AS state
       FROM pgboss.job j
      WHERE j.data ? 'runId'
        AND ($1::text[] IS NULL OR j.data->>'runId' = ANY($1::text[]))
        AND ($2::text IS NULL OR EXISTS (SELECT 1 FROM runs r WHERE r.id = j.data->>'runId' AND r.job_id = $2))
        AND (NOT $3::boolean OR j.state < 'active')
      ORDER BY j.start_after, j.name`,
    [filter.runIds ?? null, filter.jobId ?? null, filter.waitingOnly ?? false],
  );
  return rows;
}
