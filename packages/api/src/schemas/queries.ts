// Query strings and small request bodies of the list and action endpoints.
import { z } from 'zod';
import { InstantInput, integerParam, JobIdInput, PAGE_PARAMS, RunIdInput } from './common';
import { CronExpression, IntervalScheduleInput, MAX_INTERVAL_SECONDS, TimeZone } from './job-input';
import { JOB_STATUSES, RUN_STATUSES } from '@belfry/core';
import { storableText } from './text';

export const ListJobsQuery = z.strictObject({
  status: z.enum(JOB_STATUSES).optional(),
  name: z
    .string()
    .min(1)
    .max(200)
    .superRefine(storableText)
    .optional()
    .meta({ description: 'Jobs whose name starts with this (case-sensitive)' }),
  ...PAGE_PARAMS,
});
export type ListJobsQuery = z.output<typeof ListJobsQuery>;

export const ListRunsQuery = z.strictObject({
  status: z.enum(RUN_STATUSES).optional(),
  ...PAGE_PARAMS,
});
export type ListRunsQuery = z.output<typeof ListRunsQuery>;

export const DeadLetterQuery = z.strictObject({
  jobId: z.string().max(100).optional().meta({ description: "Only this job's dead runs" }),
  ...PAGE_PARAMS,
});
export type DeadLetterQuery = z.output<typeof DeadLetterQuery>;

export const MAX_PREVIEW_COUNT = 100;

export const SchedulePreviewQuery = z
  .strictObject({
    expression: CronExpression.optional(),
    timezone: TimeZone.optional().meta({ description: 'With expression; default UTC' }),
    everySeconds: z
      .string()
      .regex(/^\d{1,12}$/, { error: 'must be a whole number of seconds' })
      .transform(Number)
      .pipe(IntervalScheduleInput.shape.everySeconds)
      .optional()
      .meta({ override: integerParam({ minimum: 1, maximum: MAX_INTERVAL_SECONDS }) }),
    from: InstantInput.optional().meta({ description: 'Default: now' }),
    count: z
      .string()
      .regex(/^\d{1,4}$/, { error: `must be an integer from 1 to ${MAX_PREVIEW_COUNT}` })
      .transform(Number)
      .pipe(
        z
          .int()
          .min(1, { error: `must be an integer from 1 to ${MAX_PREVIEW_COUNT}` })
          .max(MAX_PREVIEW_COUNT, { error: `must be an integer from 1 to ${MAX_PREVIEW_COUNT}` }),
      )
      .optional()
      .meta({ override: integerParam({ minimum: 1, maximum: MAX_PREVIEW_COUNT, default: 10 }) }),
    jitterSeconds: z
      .string()
      .regex(/^\d{1,4}$/, { error: 'must be a whole number of seconds from 0 to 3600' })
      .transform(Number)
      .pipe(z.int().min(0).max(3600, { error: 'must be a whole number of seconds from 0 to 3600' }))
      .optional()
      .meta({ override: integerParam({ minimum: 0, maximum: 3600 }) }),
    jobId: JobIdInput.optional().meta({
      description: 'With jitterSeconds: the job whose offsets `dueTimes` shows (they depend on the job id)',
    }),
  })
  .superRefine((q, ctx) => {
    if ((q.jitterSeconds === undefined) !== (q.jobId === undefined)) {
      ctx.addIssue({
        code: 'custom',
        path: [q.jobId === undefined ? 'jobId' : 'jitterSeconds'],
        message: "give jitterSeconds and jobId together (each occurrence's offset depends on the job id)",
      });
    }
    if ((q.expression === undefined) === (q.everySeconds === undefined)) {
      ctx.addIssue({ code: 'custom', path: ['expression'], message: 'give exactly one of expression or everySeconds' });
    }
    if (q.timezone !== undefined && q.expression === undefined) {
      ctx.addIssue({ code: 'custom', path: ['timezone'], message: 'applies only to cron expressions' });
    }
  });
export type SchedulePreviewQuery = z.output<typeof SchedulePreviewQuery>;

export const MAX_REPLAY_IDS = 500;

export const DeadLetterReplayBody = z
  .strictObject({
    runIds: z
      .array(RunIdInput)
      .min(1, { error: 'must list at least one run' })
      .max(MAX_REPLAY_IDS, { error: `must list at most ${MAX_REPLAY_IDS} runs` })
      .optional(),
    all: z.literal(true, { error: 'must be true when given' }).optional(),
    jobId: JobIdInput.optional().meta({ description: "With `all`: only this job's dead runs" }),
    dryRun: z.boolean().optional().meta({ description: 'Count what would be replayed, change nothing' }),
  })
  .superRefine((b, ctx) => {
    if ((b.runIds === undefined) === (b.all === undefined)) {
      ctx.addIssue({ code: 'custom', path: [], message: 'give either runIds or all: true' });
    }
    if (b.jobId !== undefined && b.all === undefined) {
      ctx.addIssue({ code: 'custom', path: ['jobId'], message: 'applies only with all: true' });
    }
  })
  .meta({ id: 'DeadLetterReplay' });
export type DeadLetterReplayBody = z.output<typeof DeadLetterReplayBody>;
