// Schedule preview: the next fire times of a cron expression or an interval, computed by
// nextFireTimes from @belfry/core, the function the scheduler itself uses, so the preview
// is exactly what will happen. With a job's jitter (jitterSeconds and jobId) it also answers
// when each occurrence starts, by the scheduler's own dueTime.
import { dueTime, nextFireTimes, type ScheduleSpec } from '@belfry/core';
import type { Actor, ServiceDeps } from '../context';
import type { SchedulePreviewQuery } from '../schemas/queries';
import { authorize } from '../security/scopes';

export const DEFAULT_PREVIEW_COUNT = 10;

export async function previewSchedule(
  deps: ServiceDeps,
  actor: Actor,
  query: SchedulePreviewQuery,
): Promise<{ times: string[]; dueTimes?: string[] }> {
  authorize(actor, 'jobs:read');
  const from = query.from ?? deps.clock.now();
  // An interval previewed on its own counts from `from` (a job's counts from its anchor).
  const spec: ScheduleSpec =
    query.everySeconds !== undefined
      ? { type: 'interval', everySeconds: query.everySeconds, anchor: from }
      : { type: 'cron', expression: query.expression as string, timezone: query.timezone ?? 'UTC' };
  const times = nextFireTimes(spec, from, query.count ?? DEFAULT_PREVIEW_COUNT);
  return {
    times: times.map((t) => t.toISOString()),
    ...(query.jobId !== undefined && query.jitterSeconds !== undefined
      ? { dueTimes: times.map((t) => dueTime(query.jobId as string, t, query.jitterSeconds as number).toISOString()) }
      : {}),
  };
}
