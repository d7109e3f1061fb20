// Jobs: creation, one or a batch (with schedule entries and, optionally, an idempotency key,
// all in one transaction), lookup and listing. Changes to existing jobs live in job-changes.ts. Every
// query is scoped to the actor's tenant; another tenant's job is simply not found.
import { isId } from '@belfry/core';
import type { Actor, ServiceDeps } from '../context';
import { AppError } from '../errors';
import { type JobCreateInput, MAX_BATCH_JOBS } from '../schemas/job-input';
import type { ListJobsQuery } from '../schemas/queries';
import type { JobView } from '../schemas/resources';
import { authorize } from '../security/scopes';
import { type Queryable, withTransaction } from '../sql/tx';
import { checkIdempotencyKey, claimIdempotencyKey, requestHash } from './idempotency';
import { insertedJobView, insertJobs, prepareJob } from './job-insert';
import { jobPageSql, tenantSeq } from './job-page';
import { JOB_SELECT, type JobRow, toJobView } from './job-rows';
import { decodeCursor, type Page, pageLimit, toPage } from './pagination';

/** Timestamps are kept at millisecond precision, which is what ids and JSON carry. */
export function nowMs(deps: ServiceDeps): Date {
  return new Date(Math.floor(deps.clock.now().getTime()));
}

export { scheduleColumns } from './job-insert';

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
  const key = options.idempotencyKey === undefined ? undefined : checkIdempotencyKey(options.idempotencyKey);
  const now = nowMs(deps);
  const job = prepareJob(deps, actor.tenantId, input, now);

  return withTransaction(deps.pool, async (db) => {
    if (key !== undefined) {
      const claim = await claimIdempotencyKey(db, {
        tenantId: actor.tenantId,
        key,
        hash: requestHash(input),
        jobIds: [job.id],
        now,
      });
      if (claim.kind === 'existing') {
        const [existing] = await selectJobs(db, actor.tenantId, claim.jobIds);
        if (!existing) throw new AppError('conflict', 'the job created with this Idempotency-Key has been deleted');
        return { job: toJobView(existing), created: false };
      }
    }
    await insertJobs(db, actor, [job], now, { idempotencyKey: key ?? null });
    return { job: insertedJobView(job, actor.tenantId, now), created: true };
  });
}

export interface CreateJobsResult {
  jobs: JobView[];
  /** false when an earlier request with the same Idempotency-Key created the jobs */
  created: boolean;
}

/**
 * Creates up to MAX_BATCH_JOBS jobs in one transaction: all of them or none. The inputs are
 * validated by the caller (a bad item refuses the whole batch before anything is written).
 * Answers the jobs in the order given.
 */
export async function createJobs(
  deps: ServiceDeps,
  actor: Actor,
  inputs: readonly JobCreateInput[],
  options: CreateJobOptions = {},
): Promise<CreateJobsResult> {
  authorize(actor, 'jobs:write');
  if (inputs.length > MAX_BATCH_JOBS) {
    throw AppError.invalid([{ path: 'jobs', message: `must hold at most ${MAX_BATCH_JOBS} jobs` }]);
  }
  const key = options.idempotencyKey === undefined ? undefined : checkIdempotencyKey(options.idempotencyKey);
  const now = nowMs(deps);
  const jobs = inputs.map((input, i) => prepareJob(deps, actor.tenantId, input, now, ['jobs', i, 'target']));

  return withTransaction(deps.pool, async (db) => {
    if (key !== undefined) {
      const claim = await claimIdempotencyKey(db, {
        tenantId: actor.tenantId,
        key,
        hash: requestHash({ batch: inputs }),
        jobIds: jobs.map((j) => j.id),
        now,
      });
      if (claim.kind === 'existing') {
        const existing = await selectJobs(db, actor.tenantId, claim.jobIds);
        if (existing.length !== claim.jobIds.length) {
          throw new AppError('conflict', 'a job created with this Idempotency-Key has been deleted');
        }
        return { jobs: existing.map(toJobView), created: false };
      }
    }
    await insertJobs(db, actor, jobs, now, key === undefined ? {} : { idempotencyKey: key });
    // What was written, as reading it back would answer it (no second statement).
    return { jobs: jobs.map((j) => insertedJobView(j, actor.tenantId, now)), created: true };
  });
}

/** The tenant's live jobs among `ids`, in the order of `ids`. */
export async function selectJobs(db: Queryable, tenantId: string, ids: readonly string[]): Promise<JobRow[]> {
  if (!ids.length) return [];
  const { rows } = await db.query<JobRow & { ord: number }>(
    `${JOB_SELECT} JOIN unnest($1::text[]) WITH ORDINALITY AS w(id, ord) ON w.id = j.id
      WHERE j.tenant_id = $2 AND j.deleted_at IS NULL
      ORDER BY w.ord`,
    [ids, tenantId],
  );
  return rows;
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
  const values: unknown[] = [await tenantSeq(deps.pool, actor.tenantId)];
  const where: string[] = [];
  if (query.name !== undefined) {
    const pattern = `${query.name.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    where.push(`j.name LIKE $${values.push(pattern)}`);
  }
  if (after) where.push(`(j.created_at, j.id) < ($${values.push(after.t)}::timestamptz, $${values.push(after.id)})`);
  const page = jobPageSql('$1', query.status, where, `$${values.push(limit + 1)}`);
  const { rows } = await deps.pool.query<JobRow>(
    `${JOB_SELECT} JOIN (${page}) p ON p.id = j.id ORDER BY j.created_at DESC, j.id DESC`,
    values,
  );
  return toPage('jobs', rows, limit, (r) => ({ t: r.sort_ts, id: r.id }), toJobView);
}
