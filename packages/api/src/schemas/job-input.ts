// What a client may send to create or change a job. Schedules are validated with the very
// functions the scheduler uses (validateCronExpression, validateTimezone), so an accepted
// schedule is one the engine can run.
import {
  MAX_JITTER_SECONDS,
  MISFIRE_POLICIES,
  OVERLAP_POLICIES,
  PRIORITIES,
  validateCronExpression,
  validateTimezone,
} from '@belfry/core';
import { z } from 'zod';
import { InstantInput } from './common';
import { PayloadInput, TargetInput } from './target';
import { hasControlCharacter, storableText } from './text';

export const MAX_INTERVAL_SECONDS = 366 * 24 * 60 * 60;

const byCore = (check: (value: string) => string | null) => (value: string, ctx: z.core.$RefinementCtx<string>) => {
  const problem = check(value);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
};

export const JobName = z
  .string()
  .min(1, { error: 'must be 1 to 200 characters' })
  .max(200, { error: 'must be 1 to 200 characters' })
  .refine((s) => s.trim() !== '', { error: 'must not be blank' })
  .refine((s) => !hasControlCharacter(s), { error: 'must not contain control characters' })
  .superRefine(storableText)
  .meta({ example: 'daily-report' });

export const OnceScheduleInput = z.strictObject({
  type: z.literal('once'),
  runAt: InstantInput.meta({ description: 'When to run; a time in the past runs as soon as possible' }),
});

export const CronExpression = z
  .string()
  .max(256, { error: 'must be at most 256 characters' })
  .superRefine(storableText)
  .superRefine(byCore(validateCronExpression))
  .meta({ description: '5 fields, or 6 with seconds first', example: '0 7 * * *' });

export const TimeZone = z
  .string()
  .max(64, { error: 'must be at most 64 characters' })
  .superRefine(storableText)
  .superRefine(byCore(validateTimezone))
  .meta({ description: 'IANA time zone the fields are read in', example: 'Europe/Berlin' });

export const CronScheduleInput = z.strictObject({
  type: z.literal('cron'),
  expression: CronExpression,
  timezone: TimeZone.default('UTC'),
});

export const IntervalScheduleInput = z.strictObject({
  type: z.literal('interval'),
  everySeconds: z
    .int({ error: 'must be a whole number of seconds' })
    .min(1, { error: 'must be at least 1' })
    .max(MAX_INTERVAL_SECONDS, { error: `must be at most ${MAX_INTERVAL_SECONDS} (366 days)` }),
});

export const ScheduleInput = z
  .discriminatedUnion('type', [OnceScheduleInput, CronScheduleInput, IntervalScheduleInput])
  .meta({ id: 'ScheduleInput' });
export type ScheduleInput = z.output<typeof ScheduleInput>;

const retryFields = {
  maxAttempts: z.int().min(1).max(100),
  initialDelaySeconds: z.int().min(0).max(86_400),
  maxDelaySeconds: z.int().min(0).max(604_800),
};

export const RetryInput = z
  .strictObject({
    maxAttempts: retryFields.maxAttempts.default(5),
    initialDelaySeconds: retryFields.initialDelaySeconds.default(10),
    maxDelaySeconds: retryFields.maxDelaySeconds.default(3600),
  })
  .refine((r) => r.initialDelaySeconds <= r.maxDelaySeconds, {
    path: ['initialDelaySeconds'],
    error: 'must not exceed maxDelaySeconds',
  })
  .meta({ id: 'RetryInput', description: 'Exponential backoff with full jitter' });
export type RetryInput = z.output<typeof RetryInput>;

const TimeoutSeconds = z.int().min(1).max(900);

export const JitterSeconds = z
  .int({ error: 'must be a whole number of seconds' })
  .min(0, { error: `must be 0 to ${MAX_JITTER_SECONDS}` })
  .max(MAX_JITTER_SECONDS, { error: `must be 0 to ${MAX_JITTER_SECONDS}` })
  .meta({
    description:
      'Spreads herds: each occurrence starts at its scheduled time plus a fixed offset in [0, jitterSeconds) ' +
      "derived from the job id and the scheduled time (the run's dueAt). 0 = on time.",
    example: 60,
  });

export const JobCreateInput = z
  .strictObject({
    name: JobName,
    schedule: ScheduleInput,
    target: TargetInput,
    payload: PayloadInput.optional(),
    retry: RetryInput.prefault({}),
    timeoutSeconds: TimeoutSeconds.default(30),
    priority: z.enum(PRIORITIES).default('normal'),
    misfirePolicy: z.enum(MISFIRE_POLICIES).default('run_once'),
    overlapPolicy: z.enum(OVERLAP_POLICIES).default('allow'),
    jitterSeconds: JitterSeconds.default(0),
  })
  .meta({ id: 'JobCreate' });
export type JobCreateInput = z.output<typeof JobCreateInput>;

export const MAX_BATCH_JOBS = 1_000;

/** POST /jobs/batch: up to MAX_BATCH_JOBS jobs, created all together or not at all. */
export const JobBatchInput = z
  .strictObject({
    jobs: z
      .array(JobCreateInput)
      .min(1, { error: 'must hold at least one job' })
      .max(MAX_BATCH_JOBS, { error: `must hold at most ${MAX_BATCH_JOBS} jobs` }),
  })
  .meta({ id: 'JobBatchCreate' });
export type JobBatchInput = z.output<typeof JobBatchInput>;

/** PATCH: every field optional. `retry` merges into the current policy; the rest replace. */
export const JobPatchInput = z
  .strictObject({
    name: JobName.optional(),
    schedule: ScheduleInput.optional(),
    target: TargetInput.optional(),
    payload: PayloadInput.optional().meta({ description: 'null clears the payload' }),
    retry: z
      .strictObject({
        maxAttempts: retryFields.maxAttempts.optional(),
        initialDelaySeconds: retryFields.initialDelaySeconds.optional(),
        maxDelaySeconds: retryFields.maxDelaySeconds.optional(),
      })
      .optional()
      .meta({ description: 'Fields given replace those of the current policy' }),
    timeoutSeconds: TimeoutSeconds.optional(),
    priority: z.enum(PRIORITIES).optional(),
    misfirePolicy: z.enum(MISFIRE_POLICIES).optional(),
    overlapPolicy: z.enum(OVERLAP_POLICIES).optional(),
    jitterSeconds: JitterSeconds.optional().meta({
      description: 'Applies to occurrences not materialized yet (runs already queued keep their dueAt)',
    }),
  })
  .meta({ id: 'JobPatch' });
export type JobPatchInput = z.output<typeof JobPatchInput>;
