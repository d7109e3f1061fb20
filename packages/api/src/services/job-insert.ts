// The one write path for new jobs: a single create and a batch of up to 1,000 both come
// through insertJobs, which writes every job, its schedule entry and its audit entry with one
// statement (one multi-row insert per table over the same rows) inside the caller's transaction.
// Checks that apply to every new job (tenant quotas, ...) belong here, once.
import { newId, partitionOf, runsPerMinute } from '@belfry/core';
import type { Actor, ServiceDeps } from '../context';
import { assertTargetAllowed } from './target-policy';
import type { JobCreateInput, ScheduleInput } from '../schemas/job-input';
import type { Queryable } from '../sql/tx';
import { assertChannelsExist, jobAlertsValue } from './alert-policy';
import type { JobView } from '../schemas/resources';
import { asStoredJsonb } from '../sql/jsonb';
import { type JobRow, specOf, toJobView } from './job-rows';
import { checkAddedJobs } from './limits';
import { nextRunAt } from './schedule-entries';
import { type StorableTarget, storableTarget } from './target-secrets';

/** The schedule columns of a job; intervals count from `anchor` (stored for intervals only). */
export function scheduleColumns(schedule: ScheduleInput, anchor: Date) {
  return {
    schedule_type: schedule.type,
    cron_expression: schedule.type === 'cron' ? schedule.expression : null,
    timezone: schedule.type === 'cron' ? schedule.timezone : 'UTC',
    run_at: schedule.type === 'once' ? schedule.runAt : null,
    every_seconds: schedule.type === 'interval' ? schedule.everySeconds : null,
    anchor_at: schedule.type === 'interval' ? anchor : null,
  } as const;
}

/** A validated job input with everything the server assigns: id, partition, first occurrence. */
export interface PreparedJob {
  id: string;
  partition: number;
  input: JobCreateInput;
  schedule: ReturnType<typeof scheduleColumns>;
  /** the first occurrence; null when the schedule never fires (the job is created completed) */
  next: Date | null;
  /**
   * the target as stored: secrets masked, and sealed apart (write-only fields: docs/api.md,
   * "Write-only secrets in targets")
   */
  target: StorableTarget;
  /** scheduled occurrences per minute (core runsPerMinute), for the tenant's maxRunsPerMinute */
  runsPerMinute: number;
}

/** `at` is where the input's target sits in the request, for errors about its secrets. */
export function prepareJob(
  deps: Pick<ServiceDeps, 'partitions' | 'keyring' | 'containerImages'>,
  tenantId: string,
  input: JobCreateInput,
  now: Date,
  at: (string | number)[] = ['target'],
): PreparedJob {
  assertTargetAllowed(deps, input.target, at);
  const id = newId('job', now);
  const schedule = scheduleColumns(input.schedule, now);
  return {
    id,
    partition: partitionOf(id, deps.partitions),
    input,
    schedule,
    next: nextRunAt(specOf(schedule), now),
    target: storableTarget(deps.keyring, tenantId, input.target, null, at),
    runsPerMinute: runsPerMinute(specOf(schedule)),
  };
}

/**
 * The view of a job insertJobs just wrote, as reading it back would render it (toJobView over
 * the row): the jsonb columns as they read back (asStoredJsonb), timestamps at `now`, and as
 * next run its first occurrence (a job created in this transaction has no runs yet).
 */
export function insertedJobView(job: PreparedJob, tenantId: string, now: Date): JobView {
  const row: Omit<JobRow, 'sort_ts'> = {
    id: job.id,
    tenant_id: tenantId,
    name: job.input.name,
    ...job.schedule,
    target: asStoredJsonb(job.target.target) as JobRow['target'],
    target_secrets: job.target.secrets === null ? null : Buffer.from(job.target.secrets),
    payload: job.input.payload === undefined ? null : asStoredJsonb(job.input.payload),
    retry_max_attempts: job.input.retry.maxAttempts,
    retry_initial_delay_seconds: job.input.retry.initialDelaySeconds,
    retry_max_delay_seconds: job.input.retry.maxDelaySeconds,
    timeout_seconds: job.input.timeoutSeconds,
    priority: job.input.priority,
    misfire_policy: job.input.misfirePolicy,
    overlap_policy: job.input.overlapPolicy,
    jitter_seconds: job.input.jitterSeconds,
    status: job.next ? 'active' : 'completed',
    stored_status: job.next ? 'active' : 'completed',
    partition: job.partition,
    version: 1,
    created_at: now,
    updated_at: now,
    deleted_at: null,
    alerts: asStoredJsonb(jobAlertsValue(job.input.alerts)) as JobRow['alerts'],
    next_run_at: job.next,
  };
  return toJobView(row as JobRow);
}

/**
 * Inserts the jobs, their schedule entries and their `job.created` audit entries: one statement
 * whatever the number of jobs, the rows passed as one JSON document (serialised by V8 and parsed
 * by PostgreSQL, both far cheaper than a text array per column; as json, not jsonb, which would
 * build the whole document's tree only to take it apart again). `details` adds fields to every
 * audit entry.
 *
 * The tenant's quotas are checked after the write, against the usage the jobs triggers counted
 * on the tenant row at the statement's end (a failed check throws, and the caller's transaction
 * rolls everything back). The tenant row is locked from there to the commit only, so concurrent
 * creates of one tenant write their rows side by side instead of one after the other.
 */
export async function insertJobs(
  db: Queryable,
  actor: Actor,
  jobs: readonly PreparedJob[],
  now: Date,
  details: Record<string, unknown> = {},
): Promise<void> {
  if (!jobs.length) return;
  // Channels a job's alerts name must be the tenant's own.
  for (const [i, j] of jobs.entries()) {
    if (j.input.alerts?.channels?.length) {
      await assertChannelsExist(
        db,
        actor.tenantId,
        j.input.alerts.channels,
        jobs.length === 1 ? 'alerts.channels' : `jobs.${i}.alerts.channels`,
      );
    }
  }
  const rows = jobs.map((j) => ({
    id: j.id,
    name: j.input.name,
    schedule_type: j.schedule.schedule_type,
    cron_expression: j.schedule.cron_expression,
    timezone: j.schedule.timezone,
    run_at: j.schedule.run_at,
    every_seconds: j.schedule.every_seconds,
    target: j.target.target,
    target_secrets: j.target.secrets === null ? null : Buffer.from(j.target.secrets).toString('base64'),
    payload: j.input.payload ?? null,
    retry_max_attempts: j.input.retry.maxAttempts,
    retry_initial_delay_seconds: j.input.retry.initialDelaySeconds,
    retry_max_delay_seconds: j.input.retry.maxDelaySeconds,
    timeout_seconds: j.input.timeoutSeconds,
    priority: j.input.priority,
    misfire_policy: j.input.misfirePolicy,
    overlap_policy: j.input.overlapPolicy,
    jitter_seconds: j.input.jitterSeconds,
    status: j.next ? 'active' : 'completed',
    partition: j.partition,
    runs_per_minute: j.runsPerMinute,
    alerts: jobAlertsValue(j.input.alerts),
    next_run_at: j.next,
  }));
  // The CTEs' inserts are one statement: the foreign keys between them and the jobs triggers
  // (tenant_seq before each row, the usage counters after the statement) see every row.
  await db.query(
    `WITH u AS MATERIALIZED (
       SELECT * FROM json_to_recordset($4::json) AS u(id text, name text, schedule_type job_schedule_type,
              cron_expression text, timezone text, run_at timestamptz, every_seconds int, target jsonb, payload jsonb,
              retry_max_attempts int, retry_initial_delay_seconds int, retry_max_delay_seconds int,
              timeout_seconds int, priority job_priority, misfire_policy job_misfire_policy,
              overlap_policy job_overlap_policy, jitter_seconds int, status job_status, partition int,
              target_secrets text, runs_per_minute float8, alerts jsonb, next_run_at timestamptz)
     ), inserted_jobs AS (
       INSERT INTO jobs (id, tenant_id, name, schedule_type, cron_expression, timezone, run_at, every_seconds, anchor_at,
                         target, payload, retry_max_attempts, retry_initial_delay_seconds, retry_max_delay_seconds,
                         timeout_seconds, priority, misfire_policy, overlap_policy, jitter_seconds, status, partition,
                         version, created_at, updated_at, target_secrets, runs_per_minute, alerts, next_run_at)
       SELECT u.id, $1, u.name, u.schedule_type, u.cron_expression, u.timezone, u.run_at, u.every_seconds,
              CASE WHEN u.schedule_type = 'interval' THEN $2::timestamptz END,
              u.target, NULLIF(u.payload, 'null'::jsonb), u.retry_max_attempts, u.retry_initial_delay_seconds,
              u.retry_max_delay_seconds, u.timeout_seconds, u.priority, u.misfire_policy, u.overlap_policy,
              u.jitter_seconds, u.status, u.partition, 1, $2, $2, decode(u.target_secrets, 'base64'),
              u.runs_per_minute, u.alerts, u.next_run_at
         FROM u
     )
     INSERT INTO audit_log (tenant_id, actor_type, actor_id, action, target_type, target_id, details)
     SELECT $1, $5, $3, 'job.created', 'job', u.id, jsonb_build_object('name', u.name) || $6::jsonb
       FROM u`,
    [actor.tenantId, now, actor.id, JSON.stringify(rows), actor.type, JSON.stringify(details)],
  );
  // Limits (docs/limits.md): the whole batch counts, and only jobs created active add runs.
  await checkAddedJobs(db, actor.tenantId, {
    jobs: jobs.length,
    runsPerMinute: jobs.reduce((sum, j) => sum + (j.next ? j.runsPerMinute : 0), 0),
  });
}
