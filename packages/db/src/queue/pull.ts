// What a tenant's pull queues hold: waiting messages per queue (pg-boss's `p.<tenant>.<queue>`
// queues, the states before 'active'), and when a queue's next message comes due — what a
// long-polling claim waits for.
import type { Queryable } from '../sql/types';
import { lanePrefix, queueName } from './names';

export interface PullQueueDepth {
  /** the pull queue's name (without the tenant prefix) */
  name: string;
  /** messages waiting, due now or later */
  waiting: number;
  /** of those, the ones due now */
  due: number;
  /** the earliest start_after of the waiting ones */
  nextDueAt: Date | null;
}

function isMissingSchema(err: unknown): boolean {
  const code = (err as { code?: unknown }).code;
  return code === '42P01' || code === '3F000';
}

/** Waiting messages of each of the tenant's pull queues that has any. */
export async function pullQueueDepths(db: Queryable, tenantId: string): Promise<PullQueueDepth[]> {
  const prefix = `${lanePrefix('pull')}${tenantId}.`;
  try {
    const { rows } = await db.query<PullQueueDepth>(
      `SELECT substr(name, length($1) + 1) AS name, count(*)::int AS waiting,
              count(*) FILTER (WHERE start_after <= now())::int AS due, min(start_after) AS "nextDueAt"
         FROM pgboss.job
        WHERE state < 'active' AND left(name, length($1)) = $1
        GROUP BY name
        ORDER BY name`,
      [prefix],
    );
    return rows;
  } catch (err) {
    if (isMissingSchema(err)) return [];
    throw err;
  }
}

/** When the first waiting message of a tenant's pull queue is (or was) due; null when none waits. */
export async function pullQueueNextDue(db: Queryable, tenantId: string, queue: string): Promise<Date | null> {
  const name = queueName({ lane: 'pull', tenantId, queue });
  try {
    const { rows } = await db.query<{ at: Date | null }>(
      `SELECT LEAST(
         (SELECT start_after FROM pgboss.job WHERE name = $1 AND state = 'created' AND NOT blocked
           ORDER BY start_after LIMIT 1),
         (SELECT start_after FROM pgboss.job WHERE name = $1 AND state = 'retry' AND NOT blocked
           ORDER BY start_after LIMIT 1)) AS at`,
      [name],
    );
    return rows[0]?.at ?? null;
  } catch (err) {
    if (isMissingSchema(err)) return null;
    throw err;
  }
}
