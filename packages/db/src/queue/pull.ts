// When a tenant's pull queue's next waiting message (pg-boss's `p.<tenant>.<queue>` queues, the
// states before 'active') comes due — what a long-polling claim waits for. What the queues
// hold, a page at a time: pull-list.ts.
import type { Queryable } from '../sql/types';
import { queueName } from './names';

function isMissingSchema(err: unknown): boolean {
  const code = (err as { code?: unknown }).code;
  return code === '42P01' || code === '3F000';
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
