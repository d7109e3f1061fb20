// The tenant's pull queues as the dashboard and `GET /queues` show them (docs/api.md "Pull
// queues"): what waits, what is claimed, and the workers seen.
import { pullQueueDepths } from '@belfry/db';
import type { Actor, ServiceDeps } from '../context';
import type { PullQueueView } from '../schemas/pull';
import { authorize } from '../security/scopes';
import { tenantJobsSql, tenantSeq } from './job-page';

const WORKERS_SEEN_HOURS = 24;

/**
 * The tenant's pull queues: every queue a job targets, has waiting runs or was claimed from,
 * with what waits, what is claimed, and the workers seen.
 */
export async function listPullQueues(deps: ServiceDeps, actor: Actor): Promise<{ data: PullQueueView[] }> {
  authorize(actor, 'runs:read');
  const tenantId = actor.tenantId;
  const seq = await tenantSeq(deps.pool, tenantId);
  const [depths, targeted, claimed, workers] = await Promise.all([
    pullQueueDepths(deps.pool, tenantId),
    deps.pool.query<{ queue: string }>(
      `SELECT DISTINCT j.target->>'queue' AS queue FROM jobs j
        WHERE ${tenantJobsSql('$1').join(' AND ')} AND j.target->>'type' = 'pull'`,
      [seq],
    ),
    deps.pool.query<{ queue: string; claimed: number }>(
      `SELECT j.target->>'queue' AS queue, count(*)::int AS claimed
         FROM runs r JOIN jobs j ON j.id = r.job_id
        WHERE r.tenant_id = $1 AND r.status = 'running' AND j.target->>'type' = 'pull'
        GROUP BY 1`,
      [tenantId],
    ),
    deps.pool.query<{ queue: string; worker: string; last_seen_at: Date; last_claim_at: Date | null }>(
      `SELECT queue, worker, last_seen_at, last_claim_at FROM pull_workers
        WHERE tenant_id = $1 AND last_seen_at > now() - make_interval(hours => $2)
        ORDER BY queue, last_seen_at DESC, worker`,
      [tenantId, WORKERS_SEEN_HOURS],
    ),
  ]);
  const lastClaims = await deps.pool.query<{ queue: string; last_claim_at: Date | null }>(
    'SELECT queue, max(last_claim_at) AS last_claim_at FROM pull_workers WHERE tenant_id = $1 GROUP BY queue',
    [tenantId],
  );
  const names = new Set<string>([
    ...depths.map((d) => d.name),
    ...targeted.rows.map((r) => r.queue),
    ...claimed.rows.map((r) => r.queue),
    ...lastClaims.rows.map((r) => r.queue),
  ]);
  return {
    data: [...names].sort().map((name) => {
      const depth = depths.find((d) => d.name === name);
      const last = lastClaims.rows.find((r) => r.queue === name)?.last_claim_at ?? null;
      return {
        name,
        waiting: depth?.waiting ?? 0,
        due: depth?.due ?? 0,
        claimed: claimed.rows.find((r) => r.queue === name)?.claimed ?? 0,
        lastClaimAt: last?.toISOString() ?? null,
        workers: workers.rows
          .filter((w) => w.queue === name)
          .map((w) => ({
            name: w.worker,
            lastSeenAt: w.last_seen_at.toISOString(),
            lastClaimAt: w.last_claim_at?.toISOString() ?? null,
          })),
      };
    }),
  };
}
