// How many runs wait in the queues of engine workers (push and container lanes), by priority (ready
// and deferred alike): the engine's belfry_queue_depth gauge and the dashboard's cluster page.
// Counted from pg-boss's job table: the runs of messages in the states before 'active' ('created',
// 'retry'); a message may carry several (RunBatchMessage, enqueue.ts).
import { PRIORITIES, type Priority, WORKER_LANES } from '@belfry/core';
import type { Queryable } from '../sql/types';
import { runsInMessage } from './enqueue';
import { lanePrefix } from './names';

export interface PriorityDepth {
  priority: Priority;
  /** every tenant's messages waiting (due now or later) */
  total: number;
  /** of those, the ones due now */
  totalDue: number;
  /** the given tenant's (0 without one) */
  tenant: number;
  tenantDue: number;
}

/** Depth per priority, highest first; all zero when pg-boss has not installed its schema yet. */
export async function queueDepth(db: Queryable, tenantId?: string): Promise<PriorityDepth[]> {
  const depth = PRIORITIES.map((priority) => ({ priority, total: 0, totalDue: 0, tenant: 0, tenantDue: 0 }));
  try {
    const { rows } = await db.query<{
      priority: string;
      total: number;
      total_due: number;
      tenant: number;
      tenant_due: number;
    }>(
      `SELECT split_part(name, '.', 3) AS priority,
              sum(runs)::int AS total,
              COALESCE(sum(runs) FILTER (WHERE start_after <= now()), 0)::int AS total_due,
              COALESCE(sum(runs) FILTER (WHERE split_part(name, '.', 2) = $1), 0)::int AS tenant,
              COALESCE(sum(runs) FILTER (WHERE split_part(name, '.', 2) = $1 AND start_after <= now()), 0)::int AS tenant_due
         FROM (SELECT j.name, j.start_after, ${runsInMessage('j')} AS runs
                 FROM pgboss.job j
                WHERE j.state < 'active' AND left(j.name, 2) = ANY($2::text[])) m
        GROUP BY 1`,
      [tenantId ?? null, WORKER_LANES.map(lanePrefix)],
    );
    for (const r of rows) {
      const slot = depth.find((d) => d.priority === r.priority);
      if (slot)
        Object.assign(slot, { total: r.total, totalDue: r.total_due, tenant: r.tenant, tenantDue: r.tenant_due });
    }
  } catch (err) {
    // No engine has started yet, so pg-boss has not created its schema: nothing is queued.
    const code = (err as { code?: unknown }).code;
    if (code !== '42P01' && code !== '3F000') throw err;
  }
  return depth;
}
