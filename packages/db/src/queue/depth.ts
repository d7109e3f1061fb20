// How many run messages wait in the tenant queues, by priority (ready and deferred alike):
// the engine's belfry_queue_depth gauge, read when metrics are scraped.
import type { Queryable } from '../sql/types';
import type { Priority } from '@belfry/core';

export async function queueDepth(db: Queryable): Promise<Record<Priority, number>> {
  const { rows } = await db.query<{ priority: string; n: number }>(
    `SELECT split_part(name, '.', 3) AS priority, count(*)::int AS n
     FROM pgboss.job WHERE name LIKE 't.%' AND state < 'active'
     GROUP BY 1`,
  );
  const depth: Record<Priority, number> = { high: 0, normal: 0, low: 0 };
  for (const r of rows) if (r.priority in depth) depth[r.priority as Priority] = r.n;
  return depth;
}
