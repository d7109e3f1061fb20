// The dead letter: dead runs (attempts exhausted, or a failure not worth retrying) whose job
// still exists. Replaying one creates a new run linked to it (replay_of); the dead run stays
// dead, and stays listed, with `replayedBy` naming its latest replay. Replaying the dead
// letter is idempotent: a run that has a replay already is not replayed again by
// POST /dead-letter/replay (POST /runs/{id}/replay, an explicit "run it again", always is).
// If a replay dies too, it is in the dead letter itself.
import type { Priority } from '@belfry/core';
import type { RouteFields } from '@belfry/handlers/schemas';
import type { Actor, ServiceDeps } from '../context';
import { AppError } from '../errors';
import type { DeadLetterQuery, DeadLetterReplayBody } from '../schemas/queries';
import type { DeadLetterRunView } from '../schemas/resources';
import { authorize } from '../security/scopes';
import { withTransaction } from '../sql/tx';
import { auditSql } from './audit';
import { nowMs, selectJob } from './jobs';
import { decodeCursor, type Page, pageLimit, toPage } from './pagination';
import { insertAndEnqueueRuns } from './run-enqueue';
import { type RunRow, runKey, runSelect, withAttempts } from './run-rows';

export const REPLAY_BATCH_SIZE = 500;
const REPLAY_LOCK = 4242003;

const DEAD = `
  r.dead_at IS NOT NULL AND r.status = 'dead' AND r.finished_at IS NOT NULL
  AND EXISTS (SELECT 1 FROM jobs j WHERE j.id = r.job_id AND j.tenant_id = r.tenant_id AND j.deleted_at IS NULL)`;

// A replay is always requested after the original was scheduled, which lets the replay_of
// probes skip older partitions.
const NOT_REPLAYED = `
  NOT EXISTS (SELECT 1 FROM runs x
               WHERE x.tenant_id = r.tenant_id AND x.replay_of = r.id AND x.scheduled_time >= r.scheduled_time)`;

const REPLAYED_BY = `
  (SELECT x.id FROM runs x
    WHERE x.tenant_id = r.tenant_id AND x.replay_of = r.id AND x.scheduled_time >= r.scheduled_time
    ORDER BY x.scheduled_time DESC, x.id DESC LIMIT 1) AS replayed_by`;

async function requireLiveJob(deps: ServiceDeps, actor: Actor, jobId: string): Promise<void> {
  if (!(await selectJob(deps.pool, actor.tenantId, jobId))) throw AppError.notFound('Job');
}

/** Newest death first, replayed or not. */
export async function listDeadLetter(
  deps: ServiceDeps,
  actor: Actor,
  query: DeadLetterQuery = {},
): Promise<Page<DeadLetterRunView>> {
  authorize(actor, 'runs:read');
  const limit = pageLimit(query.limit);
  const after = decodeCursor('dlq', query.cursor);
  if (query.jobId !== undefined) await requireLiveJob(deps, actor, query.jobId);
  const values: unknown[] = [actor.tenantId];
  const where = ['r.tenant_id = $1', DEAD];
  if (query.jobId !== undefined) where.push(`r.job_id = $${values.push(query.jobId)}`);
  if (after) where.push(`(r.dead_at, r.id) < ($${values.push(after.t)}::timestamptz, $${values.push(after.id)})`);
  values.push(limit + 1);
  const { rows } = await deps.pool.query<RunRow & { replayed_by: string | null }>(
    `${runSelect('r.dead_at').replace(' FROM runs r', `, ${REPLAYED_BY} FROM runs r`)}
      WHERE ${where.join(' AND ')}
      ORDER BY r.dead_at DESC, r.id DESC LIMIT $${values.length}`,
    values,
  );
  const page = toPage(
    'dlq',
    rows,
    limit,
    (r) => ({ t: r.sort_ts, id: r.id }),
    (r) => r,
  );
  const views = await withAttempts(deps.pool, actor.tenantId, page.data);
  return {
    data: views.map((v, i) => ({ ...v, replayedBy: page.data[i]?.replayed_by ?? null })),
    nextCursor: page.nextCursor,
  };
}

export type ReplayDeadLetterResult = { replayed: number } | { wouldReplay: number };

/**
 * Replays the listed dead runs, or all of the tenant's (or one job's). Runs not in the queue
 * (unknown, not dead, already replayed) are skipped, so repeating a request replays nothing
 * twice. `all` works in transactions of at most REPLAY_BATCH_SIZE runs and takes only runs
 * that were dead when the request started, so it ends even while new runs keep dying.
 */
export async function replayDeadLetter(
  deps: ServiceDeps,
  actor: Actor,
  input: DeadLetterReplayBody,
): Promise<ReplayDeadLetterResult> {
  authorize(actor, 'runs:write');
  const now = nowMs(deps);
  const values: unknown[] = [actor.tenantId];
  const where = ['r.tenant_id = $1', DEAD, NOT_REPLAYED];
  if (input.runIds) {
    const keys = [...new Set(input.runIds)].map(runKey).filter((k) => k !== null);
    where.push(`r.id = ANY($${values.push(keys.map((k) => k.id))}::text[])`);
    where.push(`r.scheduled_time = ANY($${values.push(keys.map((k) => k.scheduledTime))}::timestamptz[])`);
  } else {
    if (input.jobId !== undefined) {
      await requireLiveJob(deps, actor, input.jobId);
      where.push(`r.job_id = $${values.push(input.jobId)}`);
    }
    where.push(`r.dead_at <= $${values.push(now)}`);
  }

  if (input.dryRun) {
    const { rows } = await deps.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM runs r WHERE ${where.join(' AND ')}`,
      values,
    );
    return { wouldReplay: rows[0]?.n ?? 0 };
  }

  let replayed = 0;
  for (;;) {
    const batch = await withTransaction(deps.pool, async (client) => {
      // One replay of the tenant's dead letter at a time: NOT_REPLAYED must see the
      // replays a concurrent request just committed, or both would replay the same runs.
      await client.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [REPLAY_LOCK, actor.tenantId]);
      const { rows } = await client.query<{ id: string; job_id: string; priority: Priority; target: RouteFields }>(
        `SELECT r.id, r.job_id, j.priority, j.target
           FROM runs r JOIN jobs j ON j.id = r.job_id
          WHERE ${where.join(' AND ')}
          ORDER BY r.dead_at, r.id LIMIT ${REPLAY_BATCH_SIZE}
          FOR SHARE OF j`,
        values,
      );
      const created = await insertAndEnqueueRuns(
        client,
        deps.queue,
        actor.tenantId,
        now,
        rows.map((r) => ({ jobId: r.job_id, priority: r.priority, target: r.target, replayOf: r.id })),
      );
      if (created.length) {
        await auditSql(client, actor, 'dead_letter.replayed', 'dead_letter', input.jobId ?? null, {
          mode: input.runIds ? 'runIds' : 'all',
          count: created.length,
          runIds: created.map((r) => r.replay_of),
          newRunIds: created.map((r) => r.id),
        });
      }
      return created.length;
    });
    replayed += batch;
    if (input.runIds || batch < REPLAY_BATCH_SIZE) break;
  }
  return { replayed };
}
