// What the queues hold, run by run (a message may carry several: RunBatchMessage, enqueue.ts):
// for tests and diagnostics, never the hot path.
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

/** The queued runs of every run queue (or those the filter names), earliest start_after first. */
export async function queuedMessages(db: Queryable, filter: QueuedMessageFilter = {}): Promise<QueuedMessage[]> {
  const { rows } = await db.query<QueuedMessage>(
    `SELECT j.name, m.run_id AS "runId", j.data->>'scheduledTime' AS "scheduledTime",
            j.start_after AS "startAfter", j.state::text AS state
       FROM pgboss.job j
      CROSS JOIN LATERAL (
        SELECT j.data->>'runId' AS run_id WHERE j.data ? 'runId'
        UNION ALL
        SELECT e.run_id FROM jsonb_array_elements_text(j.data->'runIds') AS e(run_id)
         WHERE j.data ? 'runIds'
      ) m
      WHERE ($1::text[] IS NULL OR m.run_id = ANY($1::text[]))
        AND ($2::text IS NULL OR EXISTS (SELECT 1 FROM runs r WHERE r.id = m.run_id AND r.job_id = $2))
        AND (NOT $3::boolean OR j.state < 'active')
      ORDER BY j.start_after, j.name`,
    [filter.runIds ?? null, filter.jobId ?? null, filter.waitingOnly ?? false],
  );
  return rows;
}
