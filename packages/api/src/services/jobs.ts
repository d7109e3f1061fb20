// Jobs: creation (with its schedule entry and, optionally, an idempotency key, all in one
// transaction), lookup and listing. Changes to existing jobs live in job-changes.ts. Every
// query is scoped to the actor's tenant; another tenant's job is simply not found.
import { isId, newId, partitionOf } from '@belfry/core';
import type { Actor, ServiceDeps } from '../context';
import { AppError } from '../errors';
import type { JobCreateInput, ScheduleInput } from '../schemas/job-input';
import type { ListJobsQuery } from '../schemas/queries';
import type { JobView } from '../schemas/resources';
import { authorize } from '../security/scopes';
import { type Queryable, withTransaction } from '../sql/tx';
import { auditSql } from './audit';
import { checkIdempotencyKey, claimIdempotencyKey, requestHash } from './idempotency';
import { JOB_SELECT, type JobRow, specOf, toJobView } from './job-rows';
import { decodeCursor, type Page, pageLimit, toPage } from './pagination';
import { nextRunAt, putScheduleEntry } from './schedule-entries';
import { assertTargetAllowed } from './target-policy';

/** Timestamps are kept at millisecond precision, which is what ids and JSON carry. */
export function nowMs(deps: ServiceDeps): Date {
  return new Date(Math.floor(deps.clock.now().getTime()));
}

/** The schedule columns of a job; intervals count from `anchor`. */
export function scheduleColumns(schedule: ScheduleInput, anchor: Date) {
  return {
    schedule_type: schedule.type,
    cron_expression: schedule.type === 'cron' ? schedule.expression : null,
    timezone: schedule.type === 'cron' ? schedule.timezone : 'UTC',
    run_at: schedule.type === 'once' ? schedule.runAt : null,
    every_seconds: schedule.type === 'interval' ? schedule.everySeconds : null,
    anchor_at: anchor,
  } as const;
}

export async function selectJob(
  db: Queryable,
  tenantId: string,
  jobId: string,
  options: { forUpdate?: boolean; includeDeleted?: boolean } = {},
): Promise<JobRow | null> {
  if (!isId('job', jobId)) return null;
  const { rows } = await db.query<JobRow>(
    `${JOB_SELECT} WHERE j.id = $1 AND j.tenant_id = $2${options.includeDeleted ? '' : ' AND j.deleted_at IS NULL'}
     ${options.forUpdate ? 'FOR UPDATE OF j' : ''}`,
    [jobId, tenantId],
  );
  return rows[0] ?? null;
}

export async function requireJob(db: Queryable, tenantId: string, jobId: string, forUpdate = false): Promise<JobRow> {
  const row = await selectJob(db, tenantId, jobId, { forUpdate });
  if (!row) throw AppError.notFound('Job');
  return row;
}

export interface CreateJobOptions {
  /** the Idempotency-Key header: same key and same input within 24 h gives the same job */
  idempotencyKey?: string | undefined;
}

export interface CreateJobResult {
  job: JobView;
  /** false when an earlier request with the same Idempotency-Key created the job */
  created: boolean;
}

export async function createJob(
  deps: ServiceDeps,
  actor: Actor,
  input: JobCreateInput,
  options: CreateJobOptions = {},
): Promise<CreateJobResult> {
  authorize(actor, 'jobs:write');
  assertTargetAllowed(deps, input.target);
  const key = options.idempotencyKey === undefined ? undefined : checkIdempotencyKey(options.idempotencyKey);
  const now = nowMs(deps);
  const jobId = newId('job', now);
  const partition = partitionOf(jobId, deps.partitions);
  const schedule = scheduleColumns(input.schedule, now);
  const next = nextRunAt(specOf(schedule), now);
  const status = next ? 'active' : 'completed';

  return withTransaction(deps.pool, async (db) => {
    if (key !== undefined) {
      const claim = await claimIdempotencyKey(db, {
        tenantId: actor.tenantId,
        key,
        hash: requestHash(input),
        jobId,
        now,
      });
      if (claim.kind === 'existing') {
        const existing = await selectJob(db, actor.tenantId, claim.jobId);
        if (!existing) throw new AppError('conflict', 'the job created with this Idempotency-Key has been deleted');
        return { job: toJobView(existing), created: false };
      }
    }
    await db.query(
      `INSERT INTO jobs (id, tenant_id, name, schedule_type, cron_expression, timezone, run_at, every_seconds, anchor_at,
                         target, payload, retry_max_attempts, retry_initial_delay_seconds, retry_max_delay_seconds,
                         timeout_seconds, priority, misfire_policy, overlap_policy, status, partition, version,
                         created_by, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::jsonb, $11::jsonb, $12, $13, $14, $15, $16, $17, $18, $19, $20, 1,
               $21, $22, $22)`,
      [
        jobId,
        actor.tenantId,
        input.name,
        schedule.schedule_type,
        schedule.cron_expression,
        schedule.timezone,
        schedule.run_at,
        schedule.every_seconds,
        schedule.anchor_at,
        JSON.stringify(input.target),
        input.payload === undefined || input.payload === null ? null : JSON.stringify(input.payload),
        input.retry.maxAttempts,
        input.retry.initialDelaySeconds,
        input.retry.maxDelaySeconds,
        input.timeoutSeconds,
        input.priority,
        input.misfirePolicy,
        input.overlapPolicy,
        status,
        partition,
        actor.id,
        now,
      ],
    );
    if (next) await putScheduleEntry(db, { jobId, tenantId: actor.tenantId, partition, nextRunAt: next });
    await auditSql(db, actor, 'job.created', 'job', jobId, { name: input.name, idempotencyKey: key ?? null });
    const row = await selectJob(db, actor.tenantId, jobId);
    return { job: toJobView(row as JobRow), created: true };
  });
}

export async function getJob(deps: ServiceDeps, actor: Actor, jobId: string): Promise<JobView> {
  authorize(actor, 'jobs:read');
  return toJobView(await requireJob(deps.pool, actor.tenantId, jobId));
}

/** Newest first. `name` matches names that start with it. */
export async function listJobs(deps: ServiceDeps, actor: Actor, query: ListJobsQuery = {}): Promise<Page<JobView>> {
  authorize(actor, 'jobs:read');
  const limit = pageLimit(query.limit);
  const after = decodeCursor('jobs', query.cursor);
  const values: unknown[] = [actor.tenantId];
  const where = ['j.tenant_id = $1', 'j.deleted_at IS NULL'];
  if (query.status !== undefined) where.push(`j.status = $${values.push(query.status)}`);
  if (query.name !== undefined) {
    const pattern = `${query.name.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    where.push(`j.name LIKE $${values.push(pattern)}`);
  }
  if (after) where.push(`(j.created_at, j.id) < ($${values.push(after.t)}::timestamptz, $${values.push(after.id)})`);
  values.push(limit + 1);
  const { rows } = await deps.pool.query<JobRow>(
    `${JOB_SELECT} WHERE ${where.join(' AND ')} ORDER BY j.created_at DESC, j.id DESC LIMIT $${values.length}`,
    values,
  );
  return toPage('jobs', rows, limit, (r) => ({ t: r.sort_ts, id: r.id }), toJobView);
}
