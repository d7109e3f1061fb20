// Steady load: a mix of interval (every 1 s) and cron (every second, 6-field) jobs that
// together produce `perSecond` occurrences per second for `seconds`. Reports the start-lag
// distribution and its trend over time (does it drift?).
import { newId, partitionOf } from '@belfry/core';
import { benchDatabase, insertTenants, startEngines, startSink } from '../lib/harness';
import { steadyFigures, type SteadyFigures, waitForWindow } from '../lib/figures';

export interface SteadyResult extends SteadyFigures {
  parameters: Record<string, unknown>;
  /**
   * attempts that did not succeed, by their recorded error (the five most frequent): why an
   * occurrence arrived only on a later attempt, read from run_attempt_history before the database goes
   */
  failedAttempts: { error: string; count: number }[];
}

export async function runSteady(o: {
  perSecond: number;
  seconds: number;
  engines: number;
  tenants: number;
}): Promise<SteadyResult> {
  const db = await benchDatabase();
  const sink = await startSink();
  const engines = await startEngines(db.url, o.engines, { BELFRY_TENANT_CONCURRENCY: '200' });
  try {
    const tenants = Array.from({ length: o.tenants }, () => newId('ten'));
    await insertTenants(db.pool, tenants, 200);
    const start = Math.ceil((Date.now() + 4_000) / 1000) * 1000;
    const ids: string[] = [];
    const tenantIds: string[] = [];
    const kinds: string[] = [];
    const parts: number[] = [];
    for (let i = 0; i < o.perSecond; i++) {
      const id = newId('job');
      ids.push(id);
      tenantIds.push(tenants[i % tenants.length] as string);
      kinds.push(i % 2 === 0 ? 'interval' : 'cron');
      parts.push(partitionOf(id, 1024));
    }
    const anchor = new Date(start - 1000);
    await db.pool.query(
      `INSERT INTO jobs (id, tenant_id, name, schedule_type, cron_expression, every_seconds, anchor_at, target, payload,
                         timeout_seconds, partition, next_run_at)
       SELECT id, tenant_id, 'steady-' || id, kind, CASE WHEN kind = 'cron' THEN '* * * * * *' END,
              CASE WHEN kind = 'interval' THEN 1 END, $5, $6::jsonb, '{"bench":"steady"}'::jsonb, 10, partition, $7
       FROM unnest($1::text[], $2::text[], $3::job_schedule_type[], $4::int[]) AS t(id, tenant_id, kind, partition)`,
      [
        ids,
        tenantIds,
        kinds,
        parts,
        anchor,
        JSON.stringify({ type: 'http', url: sink.url, method: 'POST', headers: {} }),
        new Date(start),
      ],
    );
    const end = start + o.seconds * 1000;
    await waitForWindow(sink.records, { start, end, expected: o.perSecond * o.seconds });
    const { rows: failedAttempts } = await db.pool.query<{ error: string; count: number }>(
      `SELECT left(COALESCE(error, status::text), 200) AS error, count(*)::int AS count
         FROM run_attempt_history WHERE status <> 'succeeded'
        GROUP BY 1 ORDER BY 2 DESC LIMIT 5`,
    );
    return {
      parameters: {
        perSecond: o.perSecond,
        seconds: o.seconds,
        engines: o.engines,
        tenants: o.tenants,
        mix: '50% interval 1 s, 50% cron "* * * * * *"',
      },
      ...steadyFigures(sink.records, { start, seconds: o.seconds, perSecond: o.perSecond }),
      failedAttempts,
    };
  } finally {
    await engines.stop();
    await sink.stop();
    await db.drop();
  }
}
