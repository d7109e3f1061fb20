// The tenant's pull queues as the dashboard and `GET /queues` show them (docs/api.md "Pull
// queues"): what waits, what is claimed, and the workers seen — a page at a time, by name,
// paged and counted in SQL (pullQueuePage) so a tenant's history never makes it slower.
import { pullQueuePage } from '@belfry/db';
import type { Actor, ServiceDeps } from '../context';
import type { PullQueueView } from '../schemas/pull';
import { authorize } from '../security/scopes';
import { tenantSeq } from './job-page';
import { decodeNameCursor, encodeNameCursor, type Page, type PageInput, pageLimit } from './pagination';

const WORKERS_SEEN_HOURS = 24;
const CURSOR_KIND = 'queues';

/**
 * One page of the tenant's pull queues: every queue a job targets, has waiting runs, has claimed
 * runs or was claimed from, with what waits, what is claimed, and the workers seen.
 */
export async function listPullQueues(
  deps: ServiceDeps,
  actor: Actor,
  input: PageInput = {},
): Promise<Page<PullQueueView>> {
  authorize(actor, 'runs:read');
  const limit = pageLimit(input.limit);
  const after = decodeNameCursor(CURSOR_KIND, input.cursor) ?? '';
  const tenantId = actor.tenantId;
  const rows = await pullQueuePage(deps.pool, {
    tenantId,
    tenantSeq: await tenantSeq(deps.pool, tenantId),
    after,
    limit: limit + 1,
  });
  const page = rows.slice(0, limit);
  const workers = await deps.pool.query<{
    queue: string;
    worker: string;
    last_seen_at: Date;
    last_claim_at: Date | null;
  }>(
    `SELECT queue, worker, last_seen_at, last_claim_at FROM pull_workers
      WHERE tenant_id = $1 AND queue = ANY($2::text[]) AND last_seen_at > now() - make_interval(hours => $3)
      ORDER BY queue, last_seen_at DESC, worker`,
    [tenantId, page.map((q) => q.name), WORKERS_SEEN_HOURS],
  );
  const last = page[page.length - 1];
  return {
    data: page.map((q) => ({
      name: q.name,
      waiting: q.waiting,
      due: q.due,
      claimed: q.claimed,
      lastClaimAt: q.last_claim_at?.toISOString() ?? null,
      workers: workers.rows
        .filter((w) => w.queue === q.name)
        .map((w) => ({
          name: w.worker,
          lastSeenAt: w.last_seen_at.toISOString(),
          lastClaimAt: w.last_claim_at?.toISOString() ?? null,
        })),
    })),
    nextCursor: rows.length > limit && last ? encodeNameCursor(CURSOR_KIND, last.name) : null,
  };
}
