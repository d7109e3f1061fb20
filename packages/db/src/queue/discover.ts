// Finds the queues of some lanes that have runnable or soon-runnable messages, for the workers'
// periodic discovery pass (the safety net behind wake-up notifications).
//
// A loose index scan over pg-boss's fetch index for the queue names, then per queue and state
// ('created', 'retry' are the states below 'active') the first start_after from its (name,
// state, blocked, start_after) index — a min() over `state < 'active'` would read every queued
// message of the queue.
import type { Lane } from '@belfry/core';
import type { Queryable } from '../sql/types';
import { lanePrefix } from './names';

export interface QueueWithWork {
  name: string;
  /** the earliest start_after of its waiting messages */
  at: Date;
  /** the earliest one still in the future, if any */
  next: Date | null;
}

export async function discoverQueues(db: Queryable, lanes: readonly Lane[]): Promise<QueueWithWork[]> {
  if (!lanes.length) return [];
  const { rows } = await db.query<QueueWithWork>(
    `WITH RECURSIVE q AS (
       (SELECT name FROM pgboss.job WHERE state < 'active' AND NOT blocked ORDER BY name LIMIT 1)
       UNION ALL
       SELECT (SELECT j.name FROM pgboss.job j WHERE j.state < 'active' AND NOT j.blocked AND j.name > q.name
               ORDER BY j.name LIMIT 1)
       FROM q WHERE q.name IS NOT NULL
     )
     SELECT q.name,
            LEAST(
              (SELECT j.start_after FROM pgboss.job j WHERE j.name = q.name AND j.state = 'created' AND NOT j.blocked
               ORDER BY j.start_after LIMIT 1),
              (SELECT j.start_after FROM pgboss.job j WHERE j.name = q.name AND j.state = 'retry' AND NOT j.blocked
               ORDER BY j.start_after LIMIT 1)) AS at,
            LEAST(
              (SELECT j.start_after FROM pgboss.job j WHERE j.name = q.name AND j.state = 'created' AND NOT j.blocked
                 AND j.start_after > now() ORDER BY j.start_after LIMIT 1),
              (SELECT j.start_after FROM pgboss.job j WHERE j.name = q.name AND j.state = 'retry' AND NOT j.blocked
                 AND j.start_after > now() ORDER BY j.start_after LIMIT 1)) AS next
     FROM q WHERE q.name IS NOT NULL AND left(q.name, 2) = ANY($1::text[])`,
    [lanes.map(lanePrefix)],
  );
  return rows;
}
