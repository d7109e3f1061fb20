// The dead-letter page: dead runs filtered by job and by when they died, with their job's
// name; a count of what "replay all matching" would replay (the dry run shown first);
// replaying all matching; and discarding (cancelling) dead runs so they leave the queue
// without running again. Replays go through the dead-letter service, in its batches.
import { z } from 'zod';
import type { Actor, ServiceDeps } from '../context';
import { JobIdInput, RunIdInput } from '../schemas/common';
import { MAX_REPLAY_IDS } from '../schemas/queries';
import type { RunView } from '../schemas/resources';
import { authorize } from '../security/scopes';
import { auditSql } from '../services/audit';
import { replayDeadLetter } from '../services/dead-letter';
import { decodeCursor, type Page, toPage } from '../services/pagination';
import { type RunRow, runKey, runSelect, withAttempts } from '../services/run-rows';
import { withTransaction } from '../sql/tx';

// Kept identical to the dead-letter service's definition of "in the queue".
const IN_QUEUE = `
  r.dead_at IS NOT NULL AND r.status = 'dead' AND r.finished_at IS NOT NULL
  AND EXISTS (SELECT 1 FROM jobs j WHERE j.id = r.job_id AND j.tenant_id = r.tenant_id AND j.deleted_at IS NULL)
  AND NOT EXISTS (SELECT 1 FROM runs x
                   WHERE x.tenant_id = r.tenant_id AND x.replay_of = r.id AND x.scheduled_time >= r.scheduled_time)`;

/** A bound on one "replay all matching" with a time filter; without one the service has no bound. */
export const MAX_FILTERED_REPLAY = 10_000;

export const DeadLetterFilter = z.strictObject({
  jobId: JobIdInput.optional(),
  /** died at or after */
  since: z.iso.datetime({ offset: true }).optional(),
  /** died before */
  until: z.iso.datetime({ offset: true }).optional(),
});
export type DeadLetterFilter = z.output<typeof DeadLetterFilter>;

export const DeadLetterListInput = DeadLetterFilter.extend({
  limit: z.int().min(1).max(200).default(50),
  cursor: z.string().min(1).max(400).optional(),
});

export const RunIdsInput = z.strictObject({
  runIds: z.array(RunIdInput).min(1, { error: 'select at least one run' }).max(MAX_REPLAY_IDS),
});

export interface DeadRun extends RunView {
  jobName: string;
  lastError: string | null;
}

function whereOf(actor: Actor, filter: DeadLetterFilter): { where: string[]; values: unknown[] } {
  const values: unknown[] = [actor.tenantId];
  const where = ['r.tenant_id = $1', IN_QUEUE];
  if (filter.jobId) where.push(`r.job_id = $${values.push(filter.jobId)}`);
  if (filter.since) where.push(`r.dead_at >= $${values.push(filter.since)}::timestamptz`);
  if (filter.until) where.push(`r.dead_at < $${values.push(filter.until)}::timestamptz`);
  return { where, values };
}

/** Newest death first. */
export async function listDeadRuns(
  deps: ServiceDeps,
  actor: Actor,
  input: z.output<typeof DeadLetterListInput>,
): Promise<Page<DeadRun>> {
  authorize(actor, 'runs:read');
  const after = decodeCursor('dlq', input.cursor);
  const { where, values } = whereOf(actor, input);
  if (after) where.push(`(r.dead_at, r.id) < ($${values.push(after.t)}::timestamptz, $${values.push(after.id)})`);
  values.push(input.limit + 1);
  const { rows } = await deps.pool.query<RunRow & { job_name: string; last_error: string | null }>(
    `SELECT q.*, j.name AS job_name FROM (
       ${runSelect('r.dead_at').replace(' FROM runs r', ', r.last_error FROM runs r')}
        WHERE ${where.join(' AND ')}
        ORDER BY r.dead_at DESC, r.id DESC LIMIT $${values.length}
     ) q JOIN jobs j ON j.id = q.job_id
     ORDER BY q.finished_at DESC, q.id DESC`,
    values,
  );
  const page = toPage(
    'dlq',
    rows,
    input.limit,
    (r) => ({ t: r.sort_ts, id: r.id }),
    (r) => r,
  );
  const views = await withAttempts(deps.pool, actor.tenantId, page.data);
  return {
    data: views.map((v, i) => ({
      ...v,
      jobName: page.data[i]?.job_name ?? '',
      lastError: page.data[i]?.last_error ?? null,
    })),
    nextCursor: page.nextCursor,
  };
}

/** How many dead runs "replay all matching" would replay now (the dry run the page shows first). */
export async function countDeadRuns(
  deps: ServiceDeps,
  actor: Actor,
  filter: DeadLetterFilter,
): Promise<{ count: number }> {
  authorize(actor, 'runs:read');
  const { where, values } = whereOf(actor, filter);
  const { rows } = await deps.pool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM runs r WHERE ${where.join(' AND ')}`,
    values,
  );
  return { count: rows[0]?.n ?? 0 };
}

/** Replays every dead run matching the filter (the service's `all`, or batches of ids when filtered by time). */
export async function replayMatching(
  deps: ServiceDeps,
  actor: Actor,
  filter: DeadLetterFilter,
): Promise<{ replayed: number }> {
  if (!filter.since && !filter.until) {
    const result = await replayDeadLetter(deps, actor, { all: true, ...(filter.jobId ? { jobId: filter.jobId } : {}) });
    return { replayed: 'replayed' in result ? result.replayed : 0 };
  }
  authorize(actor, 'runs:write');
  const { where, values } = whereOf(actor, filter);
  const { rows } = await deps.pool.query<{ id: string }>(
    `SELECT r.id FROM runs r WHERE ${where.join(' AND ')} ORDER BY r.dead_at, r.id LIMIT ${MAX_FILTERED_REPLAY}`,
    values,
  );
  let replayed = 0;
  for (let i = 0; i < rows.length; i += MAX_REPLAY_IDS) {
    const runIds = rows.slice(i, i + MAX_REPLAY_IDS).map((r) => r.id);
    const result = await replayDeadLetter(deps, actor, { runIds });
    if ('replayed' in result) replayed += result.replayed;
  }
  return { replayed };
}

/** Takes dead runs out of the queue without running them again: they become cancelled. */
export async function discardDeadRuns(
  deps: ServiceDeps,
  actor: Actor,
  runIds: string[],
): Promise<{ discarded: number }> {
  authorize(actor, 'runs:write');
  const keys = [...new Set(runIds)].map(runKey).filter((k) => k !== null);
  if (!keys.length) return { discarded: 0 };
  return withTransaction(deps.pool, async (db) => {
    const { rows } = await db.query<{ id: string }>(
      `UPDATE runs r SET status = 'cancelled', dead_at = NULL
        WHERE r.tenant_id = $1 AND r.dead_at IS NOT NULL AND r.status = 'dead'
          AND r.id = ANY($2::text[]) AND r.scheduled_time = ANY($3::timestamptz[])
        RETURNING r.id`,
      [actor.tenantId, keys.map((k) => k.id), keys.map((k) => k.scheduledTime)],
    );
    if (rows.length) {
      await auditSql(db, actor, 'dead_letter.discarded', 'dead_letter', null, {
        count: rows.length,
        runIds: rows.map((r) => r.id),
      });
    }
    return { discarded: rows.length };
  });
}

/** The jobs that have runs in the dead-letter queue, with how many, for the page's job filter. */
export async function deadLetterJobs(
  deps: ServiceDeps,
  actor: Actor,
): Promise<Array<{ jobId: string; name: string; count: number }>> {
  authorize(actor, 'runs:read');
  const { rows } = await deps.pool.query<{ job_id: string; name: string; count: number }>(
    `SELECT r.job_id, j.name, count(*)::int AS count
       FROM runs r JOIN jobs j ON j.id = r.job_id
      WHERE r.tenant_id = $1 AND ${IN_QUEUE}
      GROUP BY r.job_id, j.name
      ORDER BY count(*) DESC, j.name
      LIMIT 500`,
    [actor.tenantId],
  );
  return rows.map((r) => ({ jobId: r.job_id, name: r.name, count: r.count }));
}
