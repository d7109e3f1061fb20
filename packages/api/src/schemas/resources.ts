// What the API answers: the Job, Run and other resource shapes of the public contract
// (docs/api.md, /api/v1/openapi.json). Contract tests parse every response with these (strictly), and
// the OpenAPI document is generated from them.
import {
  ATTEMPT_STATUSES,
  JOB_STATUSES,
  MISFIRE_POLICIES,
  OVERLAP_POLICIES,
  PRIORITIES,
  RUN_STATUSES,
  RUN_TRIGGERS,
  SKIP_REASONS,
} from '@belfry/core';
import { z } from 'zod';
import { JobAlertsInput } from './alerts';
import { NullableTimestamp, pageOf, Timestamp } from './common';
import { Target } from '@belfry/handlers/schemas';

export const Schedule = z
  .discriminatedUnion('type', [
    z.strictObject({ type: z.literal('once'), runAt: Timestamp }),
    z.strictObject({ type: z.literal('cron'), expression: z.string(), timezone: z.string() }),
    z.strictObject({ type: z.literal('interval'), everySeconds: z.int() }),
  ])
  .meta({ id: 'Schedule' });

export { Target };

export const Retry = z
  .strictObject({ maxAttempts: z.int(), initialDelaySeconds: z.int(), maxDelaySeconds: z.int() })
  .meta({ id: 'Retry' });

export const Job = z
  .strictObject({
    id: z.string(),
    name: z.string(),
    schedule: Schedule,
    target: Target,
    payload: z.unknown().meta({ description: 'Any JSON; null when none was given' }),
    retry: Retry,
    timeoutSeconds: z.int(),
    priority: z.enum(PRIORITIES),
    misfirePolicy: z.enum(MISFIRE_POLICIES),
    overlapPolicy: z.enum(OVERLAP_POLICIES),
    jitterSeconds: z.int().meta({
      description: 'Each occurrence starts at its scheduled time plus a fixed offset in [0, jitterSeconds)',
    }),
    status: z.enum(JOB_STATUSES).meta({
      description:
        '`completed`: a one-off whose run has finished (succeeded, dead, cancelled or skipped); until then it is `active`',
    }),
    nextRunAt: NullableTimestamp.meta({
      description:
        'The next occurrence that has not started (one already queued ahead of its time included); null when paused, completed, or a one-off whose run has started',
    }),
    alerts: JobAlertsInput.optional().meta({ description: "The job's own alert settings; absent = the tenant policy" }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .meta({ id: 'Job' });
// zod infers `unknown` keys as optional; the API always answers payload (null when none).
export type JobView = Omit<z.output<typeof Job>, 'payload'> & { payload: unknown };

export const Attempt = z
  .strictObject({
    attempt: z.int(),
    workerId: z.string().nullable(),
    startedAt: Timestamp,
    finishedAt: NullableTimestamp,
    status: z.enum(ATTEMPT_STATUSES),
    httpStatus: z.int().nullable(),
    durationMs: z.int().nullable(),
    error: z.string().nullable(),
    responseSnippet: z.string().nullable().meta({
      description: "The first 4 KiB of the target's response, or the last 4 KiB of a container's output",
    }),
    exitCode: z.int().nullable().meta({ description: "A container's exit code" }),
  })
  .meta({ id: 'Attempt' });
export type AttemptView = z.output<typeof Attempt>;

export const Run = z
  .strictObject({
    id: z.string(),
    jobId: z.string(),
    scheduledTime: Timestamp,
    dueAt: Timestamp.meta({
      description:
        "When the run is due to start: scheduledTime plus the job's jitter offset (= scheduledTime without jitter, and for manual and replay runs)",
    }),
    status: z.enum(RUN_STATUSES),
    skipReason: z.enum(SKIP_REASONS).nullable(),
    attempt: z.int(),
    trigger: z.enum(RUN_TRIGGERS),
    replayOf: z.string().nullable(),
    createdAt: Timestamp,
    startedAt: NullableTimestamp,
    finishedAt: NullableTimestamp,
    attempts: z.array(Attempt).meta({ description: 'Every delivery attempt, in order' }),
  })
  .meta({ id: 'Run' });
export type RunView = z.output<typeof Run>;

/** A run in the dead letter: dead, whether or not it was replayed since. */
export const DeadLetterRun = Run.extend({
  replayedBy: z
    .string()
    .nullable()
    .meta({ description: 'The latest replay of this run (its id), or null when it has not been replayed' }),
}).meta({ id: 'DeadLetterRun' });
export type DeadLetterRunView = z.output<typeof DeadLetterRun>;

export const JobPage = pageOf(Job, 'JobPage');
export const JobBatch = z.strictObject({ data: z.array(Job) }).meta({ id: 'JobBatch' });
export const RunPage = pageOf(Run, 'RunPage');
export const DeadLetterPage = pageOf(DeadLetterRun, 'DeadLetterPage');

export const SigningSecret = z
  .strictObject({
    secret: z.string().meta({ example: 'whsec_...' }),
    previous: z.string().nullable().meta({ description: 'Still signing for 24 h after a rotation' }),
    previousExpiresAt: NullableTimestamp,
  })
  .meta({ id: 'SigningSecret' });

export const SchedulePreview = z
  .strictObject({
    times: z.array(Timestamp).meta({ description: 'Fire times strictly after `from`, ascending' }),
    dueTimes: z.array(Timestamp).optional().meta({
      description:
        "With jitterSeconds and jobId: when each occurrence starts (its time plus that job's offset), in the order of `times`",
    }),
  })
  .meta({ id: 'SchedulePreview' });

export const ReplayResult = z
  .union([z.strictObject({ replayed: z.int() }), z.strictObject({ wouldReplay: z.int() })])
  .meta({ id: 'ReplayResult', description: '`wouldReplay` answers a dry run' });

export const Health = z.strictObject({ status: z.literal('ok') }).meta({ id: 'Health' });

export const Limits = z
  .strictObject({
    maxJobs: z.int().meta({ description: 'Jobs the tenant may have (deleted ones do not count)', example: 100000 }),
    maxRunsPerMinute: z.int().meta({
      description:
        'Expected scheduled occurrences per minute over all active jobs (an every-second cron counts 60; see docs/limits.md)',
      example: 60000,
    }),
    maxConcurrency: z.int().meta({ description: 'Runs of the tenant in flight at once, over all engine nodes' }),
    rateLimitPerSecond: z.int().meta({ description: 'API requests per second per API key (bursts of twice that)' }),
    maxApiKeys: z.int().meta({ description: 'API keys that work at once (revoked and expired ones do not count)' }),
    usage: z
      .strictObject({
        jobs: z.int(),
        runsPerMinute: z.number().meta({ description: 'Sum over active jobs, to 3 decimals' }),
        apiKeys: z.int(),
      })
      .meta({ description: 'What the tenant uses now' }),
  })
  .meta({ id: 'Limits' });
