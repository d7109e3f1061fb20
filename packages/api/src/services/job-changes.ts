// Changes to existing jobs: patch, pause, resume, delete. Each locks the job row, changes
// the job, its schedule entry and its not-yet-started runs in one transaction, bumps the
// job's version and writes the audit log. The engine's scheduler only ever sees a job with
// an entry (active, due) or without one. A job left without a next occurrence is stored
// `completed` (reschedule), shown `active` while a scheduled run of it is still open — one a PATCH
// left to finish, say (jobStatusSql in @belfry/db): a live job stored `active` always has a next
// occurrence.
import { runsPerMinute } from '@belfry/core';
import { revealTarget } from '@belfry/handlers/schemas';
import type { Actor, ServiceDeps } from '../context';
import { AppError } from '../errors';
import { type JobPatchInput, RetryInput, type ScheduleInput } from '../schemas/job-input';
import type { JobView } from '../schemas/resources';
import { parseInput } from '../schemas/validate';
import { authorize } from '../security/scopes';
import { type Queryable, withTransaction } from '../sql/tx';
import { setJobAlerts } from './alert-policy';
import { auditSql } from './audit';
import { assertTargetAllowed } from './target-policy';
import { canonicalJson } from './idempotency';
import { type JobRow, scheduleOf, specOf, toJobView } from './job-rows';
import { nowMs, requireJob, scheduleColumns, selectJob } from './jobs';
import { checkJobQuota } from './limits';
import { storableTarget } from './target-secrets';
import {
  cancelOpenRuns,
  cancelRunningContainerRuns,
  clearNextRunAt,
  nextRunAt,
  occurrenceRunStatus,
  setNextRunAt,
  withdrawFutureScheduledRuns,
} from './schedule-entries';

function sameSchedule(row: JobRow, schedule: ScheduleInput): boolean {
  return canonicalJson(scheduleOf(row)) === canonicalJson(schedule);
}

/**
 * Puts the entry where the job's schedule says, or marks the job completed when it never fires
 * again. A one-off whose occurrence already has its scheduled run gets no entry (a pause shortly
 * before the time cancels that run, and the occurrence is then spent). A job stored completed is
 * shown active while a scheduled run of it is still open (jobStatusSql in @belfry/db), as the
 * scheduler leaves a one-off whose occurrence it materialized.
 */
async function reschedule(db: Queryable, row: JobRow, now: Date): Promise<'active' | 'completed'> {
  const next = nextRunAt(specOf(row), now);
  if (!next || (row.schedule_type === 'once' && (await occurrenceRunStatus(db, row.id, next)))) {
    await clearNextRunAt(db, row.id);
    return 'completed';
  }
  await setNextRunAt(db, { jobId: row.id, nextRunAt: next });
  return 'active';
}

async function reread(db: Queryable, tenantId: string, jobId: string): Promise<JobView> {
  return toJobView((await selectJob(db, tenantId, jobId)) as JobRow);
}

/**
 * Changes any writable field. A changed schedule restarts from now (intervals re-anchor at
 * now), cancels occurrences materialized ahead under the old schedule, and reactivates a
 * completed job. Other changes leave the next occurrence where it is, so a due run is not
 * skipped; runs read the job's definition when they execute, so they pick the change up.
 */
export async function patchJob(deps: ServiceDeps, actor: Actor, jobId: string, patch: JobPatchInput): Promise<JobView> {
  authorize(actor, 'jobs:write');
  assertTargetAllowed(deps, patch.target);
  const now = nowMs(deps);
  return withTransaction(deps.pool, async (db) => {
    const row = await requireJob(db, actor.tenantId, jobId, true);
    const retry = parseInput(
      RetryInput,
      {
        maxAttempts: patch.retry?.maxAttempts ?? row.retry_max_attempts,
        initialDelaySeconds: patch.retry?.initialDelaySeconds ?? row.retry_initial_delay_seconds,
        maxDelaySeconds: patch.retry?.maxDelaySeconds ?? row.retry_max_delay_seconds,
      },
      ['retry'],
    );
    const scheduleChanged = patch.schedule !== undefined && !sameSchedule(row, patch.schedule);
    const schedule = scheduleChanged && patch.schedule ? scheduleColumns(patch.schedule, now) : row;
    const payload = patch.payload === undefined ? row.payload : patch.payload;
    const rate = runsPerMinute(specOf({ ...row, ...schedule }));
    if (scheduleChanged && row.status !== 'paused') {
      // A completed job whose schedule changes becomes active again: all of its rate is new (the
      // usage counters count the stored status: a one-off in flight is stored completed).
      const before = row.stored_status === 'active' ? runsPerMinute(specOf(row)) : 0;
      await checkJobQuota(db, row.tenant_id, { jobs: 0, runsPerMinute: rate - before });
    }
    // Sealed again on every change, which also seals a row written before sealing existed.
    const target = storableTarget(
      deps.keyring,
      row.tenant_id,
      patch.target ?? revealTarget(deps.keyring, row.tenant_id, row.target, row.target_secrets),
      row,
    );
    await db.query(
      `UPDATE jobs SET name = $3, schedule_type = $4, cron_expression = $5, timezone = $6, run_at = $7,
              every_seconds = $8, anchor_at = $9, target = $10::jsonb, payload = $11::jsonb,
              retry_max_attempts = $12, retry_initial_delay_seconds = $13, retry_max_delay_seconds = $14,
              timeout_seconds = $15, priority = $16, misfire_policy = $17, overlap_policy = $18,
              jitter_seconds = $22, version = version + 1, updated_at = $19, target_secrets = $20, runs_per_minute = $21
        WHERE id = $1 AND tenant_id = $2`,
      [
        row.id,
        row.tenant_id,
        patch.name ?? row.name,
        schedule.schedule_type,
        schedule.cron_expression,
        schedule.timezone,
        schedule.run_at,
        schedule.every_seconds,
        schedule.anchor_at,
        JSON.stringify(target.target),
        payload === null || payload === undefined ? null : JSON.stringify(payload),
        retry.maxAttempts,
        retry.initialDelaySeconds,
        retry.maxDelaySeconds,
        patch.timeoutSeconds ?? row.timeout_seconds,
        patch.priority ?? row.priority,
        patch.misfirePolicy ?? row.misfire_policy,
        patch.overlapPolicy ?? row.overlap_policy,
        now,
        target.secrets,
        rate,
        patch.jitterSeconds ?? row.jitter_seconds,
      ],
    );
    if (patch.alerts !== undefined) await setJobAlerts(db, row.tenant_id, row.id, patch.alerts);
    if (scheduleChanged) {
      await withdrawFutureScheduledRuns(db, row.tenant_id, row.id, now);
      if (row.status !== 'paused') {
        const updated = { ...row, ...schedule };
        const status = await reschedule(db, updated, now);
        await db.query('UPDATE jobs SET status = $2 WHERE id = $1', [row.id, status]);
      }
    }
    await auditSql(db, actor, 'job.updated', 'job', row.id, { fields: Object.keys(patch).sort(), scheduleChanged });
    return reread(db, actor.tenantId, row.id);
  });
}

/**
 * Stops scheduling. Occurrences materialized ahead and not yet due are withdrawn (resuming
 * before their time runs them); runs that are due but not started, or wait for a retry, are
 * cancelled, and so is a run a worker claimed ahead (its target is never called). Runs whose
 * target call has begun finish. Idempotent.
 */
export async function pauseJob(deps: ServiceDeps, actor: Actor, jobId: string): Promise<JobView> {
  authorize(actor, 'jobs:write');
  const now = nowMs(deps);
  return withTransaction(deps.pool, async (db) => {
    const row = await requireJob(db, actor.tenantId, jobId, true);
    if (row.status === 'paused') return toJobView(row);
    if (row.status === 'completed') throw new AppError('conflict', 'the job has completed; there is nothing to pause');
    // next_run_at = NULL: no next occurrence while paused (one row version, not two)
    await db.query(
      `UPDATE jobs SET status = 'paused', version = version + 1, updated_at = $2, next_run_at = NULL WHERE id = $1`,
      [row.id, now],
    );
    const withdrawn = await withdrawFutureScheduledRuns(db, row.tenant_id, row.id, now);
    const cancelled =
      (await cancelOpenRuns(db, row.tenant_id, row.id, now)) +
      (await cancelRunningContainerRuns(db, row.tenant_id, row.id, now));
    await auditSql(db, actor, 'job.paused', 'job', row.id, { cancelledRuns: cancelled, withdrawnRuns: withdrawn });
    return reread(db, actor.tenantId, row.id);
  });
}

/** Schedules again from now (an interval keeps its anchor, so its phase is unchanged). Idempotent. */
export async function resumeJob(deps: ServiceDeps, actor: Actor, jobId: string): Promise<JobView> {
  authorize(actor, 'jobs:write');
  const now = nowMs(deps);
  return withTransaction(deps.pool, async (db) => {
    const row = await requireJob(db, actor.tenantId, jobId, true);
    if (row.status === 'active') return toJobView(row);
    if (row.status === 'completed') {
      throw new AppError('conflict', 'the job has completed; change its schedule to run it again');
    }
    await checkJobQuota(db, row.tenant_id, { jobs: 0, runsPerMinute: runsPerMinute(specOf(row)) });
    const status = await reschedule(db, row, now);
    await db.query('UPDATE jobs SET status = $2, version = version + 1, updated_at = $3 WHERE id = $1', [
      row.id,
      status,
      now,
    ]);
    await auditSql(db, actor, 'job.resumed', 'job', row.id, {});
    return reread(db, actor.tenantId, row.id);
  });
}

/** Soft delete: the job disappears from the API, its open runs are cancelled, history stays. */
export async function deleteJob(deps: ServiceDeps, actor: Actor, jobId: string): Promise<void> {
  authorize(actor, 'jobs:write');
  const now = nowMs(deps);
  await withTransaction(deps.pool, async (db) => {
    const row = await requireJob(db, actor.tenantId, jobId, true);
    await db.query(
      'UPDATE jobs SET deleted_at = $2, updated_at = $2, version = version + 1, next_run_at = NULL WHERE id = $1',
      [row.id, now],
    );
    const cancelled =
      (await cancelOpenRuns(db, row.tenant_id, row.id, now)) +
      (await cancelRunningContainerRuns(db, row.tenant_id, row.id, now));
    await auditSql(db, actor, 'job.deleted', 'job', row.id, { name: row.name, cancelledRuns: cancelled });
  });
}
