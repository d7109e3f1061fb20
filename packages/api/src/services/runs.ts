// Runs: a job's history, one run with its attempts, and the three things a user may do to
// runs: trigger a job now, cancel a run that has not finished, replay a finished one.
import { isFinishedRunStatus, OPEN_RUN_STATUSES } from '@belfry/core';
import type { Actor, ServiceDeps } from '../context';
import { AppError } from '../errors';
import type { ListRunsQuery } from '../schemas/queries';
import type { RunView } from '../schemas/resources';
import { authorize } from '../security/scopes';
import { CANCEL_CHANNEL, openRunOf, unlistEnded } from '@belfry/db';
import { withTransaction } from '../sql/tx';
import { auditSql } from './audit';
import { nowMs, requireJob, selectJob } from './jobs';
import { decodeCursor, type Page, pageLimit, toPage } from './pagination';
import { insertAndEnqueueRuns } from './run-enqueue';
import { RUN_COLUMNS, type RunRow, runSelect, selectRun, toRunView, withAttempts } from './run-rows';
import { insertUnreportedAttempts } from './schedule-entries';

/**
 * The job's runs, newest scheduled time first. The history of a deleted job stays
 * readable here (its own GET answers 404).
 */
export async function listJobRuns(
  deps: ServiceDeps,
  actor: Actor,
  jobId: string,
  query: ListRunsQuery = {},
): Promise<Page<RunView>> {
  authorize(actor, 'runs:read');
  const limit = pageLimit(query.limit);
  const after = decodeCursor('runs', query.cursor);
  if (!(await selectJob(deps.pool, actor.tenantId, jobId, { includeDeleted: true }))) throw AppError.notFound('Job');
  const values: unknown[] = [jobId, actor.tenantId];
  const where = ['r.job_id = $1', 'r.tenant_id = $2'];
  if (query.status !== undefined) where.push(`r.status = $${values.push(query.status)}`);
  // an open status: the job's open runs (listed in open_runs) instead of its whole history
  if (query.status !== undefined && (OPEN_RUN_STATUSES as readonly string[]).includes(query.status)) {
    where.push(openRunOf('r', '$1'));
  }
  if (after)
    where.push(`(r.scheduled_time, r.id) < ($${values.push(after.t)}::timestamptz, $${values.push(after.id)})`);
  values.push(limit + 1);
  const { rows } = await deps.pool.query<RunRow>(
    `${runSelect('r.scheduled_time')} WHERE ${where.join(' AND ')}
      ORDER BY r.scheduled_time DESC, r.id DESC LIMIT $${values.length}`,
    values,
  );
  const page = toPage(
    'runs',
    rows,
    limit,
    (r) => ({ t: r.sort_ts, id: r.id }),
    (r) => r,
  );
  return { data: await withAttempts(deps.pool, actor.tenantId, page.data), nextCursor: page.nextCursor };
}

export async function getRun(deps: ServiceDeps, actor: Actor, runId: string): Promise<RunView> {
  authorize(actor, 'runs:read');
  const row = await selectRun(deps.pool, actor.tenantId, runId);
  if (!row) throw AppError.notFound('Run');
  const [view] = await withAttempts(deps.pool, actor.tenantId, [row]);
  return view as RunView;
}

/** Runs the job once now, outside its schedule (also when it is paused or completed). */
export async function triggerJob(deps: ServiceDeps, actor: Actor, jobId: string): Promise<RunView> {
  authorize(actor, 'runs:write');
  const now = nowMs(deps);
  return withTransaction(deps.pool, async (client) => {
    // FOR UPDATE also keeps a concurrent delete from slipping in between.
    const job = await requireJob(client, actor.tenantId, jobId, true);
    const [run] = await insertAndEnqueueRuns(client, deps.queue, actor.tenantId, now, [
      { jobId: job.id, priority: job.priority, target: job.target, replayOf: null },
    ]);
    const row = run as RunRow;
    await auditSql(client, actor, 'job.triggered', 'job', job.id, { runId: row.id });
    return toRunView(row, []);
  });
}

/**
 * Stops a run that has not finished. A pending or retry-waiting run never starts; a running
 * one is fenced out: its worker's completion no longer matches the run's status.
 */
export async function cancelRun(deps: ServiceDeps, actor: Actor, runId: string): Promise<RunView> {
  authorize(actor, 'runs:write');
  const now = nowMs(deps);
  return withTransaction(deps.pool, async (client) => {
    const row = await selectRun(client, actor.tenantId, runId, true);
    if (!row) throw AppError.notFound('Run');
    if (!(OPEN_RUN_STATUSES as readonly string[]).includes(row.status)) {
      throw new AppError('conflict', `the run has already finished (${row.status}) and cannot be cancelled`);
    }
    // A running run whose worker will never report its end — claimed ahead and not yet due (it
    // is told and never starts), or its lease expired (the worker is gone) — gets its attempt's
    // row now, read from the run as it was (the statement's snapshot); a later report finds it
    // (ON CONFLICT in the enders) and changes nothing.
    const { rows } = await client.query<RunRow>(
      `WITH cancelled AS (
         UPDATE runs AS r SET status = 'cancelled', finished_at = $3, next_attempt_at = NULL, lease_expires_at = NULL
          WHERE r.id = $1 AND r.scheduled_time = $2
          RETURNING ${RUN_COLUMNS}, '' AS sort_ts
       ), closed AS (
         ${insertUnreportedAttempts('o.id = $1 AND o.scheduled_time = $2')}
       ), unlisted AS (
         DELETE FROM running_runs x WHERE x.run_id = $1 AND x.scheduled_time = $2
       ), ended AS (
         ${unlistEnded('cancelled')}
       )
       SELECT * FROM cancelled`,
      [row.id, row.scheduled_time, now],
    );
    // The worker holding a running run hears of it now (NOTIFY is sent on commit).
    if (row.status === 'running') await client.query('SELECT pg_notify($1, $2)', [CANCEL_CHANNEL, row.id]);
    // A one-off whose scheduled run this was is shown completed now (stored so since its run was
    // materialized: advance-schedule.ts in @belfry/db).
    await auditSql(client, actor, 'run.cancelled', 'run', row.id, { jobId: row.job_id, from: row.status });
    const [view] = await withAttempts(client, actor.tenantId, rows);
    return view as RunView;
  });
}

/** Runs a finished run's job again now, as a new run linked to the original. */
export async function replayRun(deps: ServiceDeps, actor: Actor, runId: string): Promise<RunView> {
  authorize(actor, 'runs:write');
  const now = nowMs(deps);
  return withTransaction(deps.pool, async (client) => {
    const row = await selectRun(client, actor.tenantId, runId);
    if (!row) throw AppError.notFound('Run');
    if (!isFinishedRunStatus(row.status)) {
      throw new AppError('conflict', `only a finished run can be replayed; this one is ${row.status}`);
    }
    const job = await selectJob(client, actor.tenantId, row.job_id, { forUpdate: true });
    if (!job) throw new AppError('conflict', "the run's job has been deleted");
    const [run] = await insertAndEnqueueRuns(client, deps.queue, actor.tenantId, now, [
      { jobId: job.id, priority: job.priority, target: job.target, replayOf: row.id },
    ]);
    const created = run as RunRow;
    await auditSql(client, actor, 'run.replayed', 'run', row.id, { jobId: job.id, newRunId: created.id });
    return toRunView(created, []);
  });
}
