// The one write path for new jobs: a single create and a batch of up to 1,000 both come
// through insertJobs, which writes every job, its schedule entry and its audit entry with one
// multi-row statement per table (unnest over column arrays) inside the caller's transaction.
// Checks that apply to every new job (tenant quotas, ...) belong here, once.
import { newId, partitionOf } from '@belfry/core';
import type { Actor, ServiceDeps } from '../context';
import type { JobCreateInput, ScheduleInput } from '../schemas/job-input';
import type { Queryable } from '../sql/tx';
import { specOf } from './job-rows';
import { nextRunAt } from './schedule-entries';

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

/** A validated job input with everything the server assigns: id, partition, first occurrence. */
export interface PreparedJob {
  id: string;
  partition: number;
  input: JobCreateInput;
  schedule: ReturnType<typeof scheduleColumns>;
  /** the first occurrence; null when the schedule never fires (the job is created completed) */
  next: Date | null;
}

export function prepareJob(deps: Pick<ServiceDeps, 'partitions'>, input: JobCreateInput, now: Date): PreparedJob {
  const id = newId('job', now);
  const schedule = scheduleColumns(input.schedule, now);
  return {
    id,
    partition: partitionOf(id, deps.partitions),
    input,
    schedule,
    next: nextRunAt(specOf(schedule), now),
  };
}

const json = (value: unknown) => (value === undefined || value === null ? null : JSON.stringify(value));

/**
 * Inserts the jobs, their schedule entries and their `job.created` audit entries: three
 * statements whatever the number of jobs. `details` adds fields to every audit entry.
 */
export async function insertJobs(
  db: Queryable,
  actor: Actor,
  jobs: readonly PreparedJob[],
  now: Date,
  details: Record<string, unknown> = {},
): Promise<void> {
  if (!jobs.length) return;
  const col = <T>(pick: (j: PreparedJob) => T): T[] => jobs.map(pick);
  await db.query(
    `INSERT INTO jobs (id, tenant_id, name, schedule_type, cron_expression, timezone, run_at, every_seconds, anchor_at,
                       target, payload, retry_max_attempts, retry_initial_delay_seconds, retry_max_delay_seconds,
                       timeout_seconds, priority, misfire_policy, overlap_policy, status, partition, version,
                       created_by, created_at, updated_at)
     SELECT u.id, $1, u.name, u.schedule_type, u.cron_expression, u.timezone, u.run_at, u.every_seconds, $2,
            u.target::jsonb, u.payload::jsonb, u.max_attempts, u.initial_delay, u.max_delay, u.timeout, u.priority,
            u.misfire, u.overlap, u.status, u.partition, 1, $3, $2, $2
       FROM unnest($4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::timestamptz[], $10::int[],
                   $11::text[], $12::text[], $13::int[], $14::int[], $15::int[], $16::int[], $17::text[], $18::text[],
                   $19::text[], $20::text[], $21::int[])
         AS u(id, name, schedule_type, cron_expression, timezone, run_at, every_seconds, target, payload,
              max_attempts, initial_delay, max_delay, timeout, priority, misfire, overlap, status, partition)`,
    [
      actor.tenantId,
      now,
      actor.id,
      col((j) => j.id),
      col((j) => j.input.name),
      col((j) => j.schedule.schedule_type),
      col((j) => j.schedule.cron_expression),
      col((j) => j.schedule.timezone),
      col((j) => j.schedule.run_at),
      col((j) => j.schedule.every_seconds),
      col((j) => JSON.stringify(j.input.target)),
      col((j) => json(j.input.payload)),
      col((j) => j.input.retry.maxAttempts),
      col((j) => j.input.retry.initialDelaySeconds),
      col((j) => j.input.retry.maxDelaySeconds),
      col((j) => j.input.timeoutSeconds),
      col((j) => j.input.priority),
      col((j) => j.input.misfirePolicy),
      col((j) => j.input.overlapPolicy),
      col((j) => (j.next ? 'active' : 'completed')),
      col((j) => j.partition),
    ],
  );
  const scheduled = jobs.filter((j) => j.next !== null);
  if (scheduled.length) {
    await db.query(
      `INSERT INTO schedule_entries (job_id, tenant_id, partition, next_run_at)
       SELECT u.job_id, $1, u.partition, u.next_run_at
         FROM unnest($2::text[], $3::int[], $4::timestamptz[]) AS u(job_id, partition, next_run_at)`,
      [actor.tenantId, scheduled.map((j) => j.id), scheduled.map((j) => j.partition), scheduled.map((j) => j.next)],
    );
  }
  await db.query(
    `INSERT INTO audit_log (tenant_id, actor_type, actor_id, action, target_type, target_id, details)
     SELECT $1, $2, $3, 'job.created', 'job', u.id, u.details::jsonb
       FROM unnest($4::text[], $5::text[]) AS u(id, details)`,
    [
      actor.tenantId,
      actor.type,
      actor.id,
      col((j) => j.id),
      col((j) => JSON.stringify({ name: j.input.name, ...details })),
    ],
  );
}
