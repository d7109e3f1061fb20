// The job form's schedule preview: the next fire times from the schedule-preview service
// (the scheduler's own nextFireTimes), each with a daylight-saving note when it lands on or
// next to a clock change in the job's zone (core's dstNoteFor).
import { dstNoteFor, dueTime } from '@belfry/core';
import { z } from 'zod';
import type { Actor, ServiceDeps } from '../context';
import { CronExpression, IntervalScheduleInput, TimeZone } from '../schemas/job-input';
import { authorize } from '../security/scopes';
import { previewSchedule } from '../services/schedule-preview';

export const PreviewInput = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('cron'),
    expression: CronExpression,
    timezone: TimeZone.default('UTC'),
    count: z.int().min(1).max(20).default(5),
  }),
  z.strictObject({
    type: z.literal('interval'),
    everySeconds: IntervalScheduleInput.shape.everySeconds,
    count: z.int().min(1).max(20).default(5),
  }),
]);
export type PreviewInput = z.output<typeof PreviewInput>;

/**
 * The job page's next run, with when it will actually start: `nextDueAt` is the next
 * occurrence plus the job's jitter offset (the scheduler computes the same one).
 */
export function withNextDue<J extends { id: string; nextRunAt: string | null; jitterSeconds: number }>(
  job: J,
): J & { nextDueAt: string | null } {
  const nextDueAt = job.nextRunAt ? dueTime(job.id, new Date(job.nextRunAt), job.jitterSeconds).toISOString() : null;
  return { ...job, nextDueAt };
}

export interface PreviewTime {
  at: string;
  dstNote: string | null;
}

export async function previewWithNotes(
  deps: ServiceDeps,
  actor: Actor,
  input: PreviewInput,
): Promise<{ times: PreviewTime[] }> {
  authorize(actor, 'jobs:read');
  const { times } =
    input.type === 'cron'
      ? await previewSchedule(deps, actor, {
          expression: input.expression,
          timezone: input.timezone,
          count: input.count,
        })
      : await previewSchedule(deps, actor, { everySeconds: input.everySeconds, count: input.count });
  return {
    times: times.map((at) => ({
      at,
      dstNote:
        input.type === 'cron'
          ? dstNoteFor({ type: 'cron', expression: input.expression, timezone: input.timezone }, new Date(at))
          : null,
    })),
  };
}
