// A job's run history on a time axis: every occurrence in a window with when it was due,
// when it started (the lag), how long its last attempt took, how it ended, and why it was
// skipped when it was. Bounded: the newest MAX_POINTS runs of the window.
import { z } from 'zod';
import type { Actor, ServiceDeps } from '../context';
import { AppError } from '../errors';
import { JobIdInput } from '../schemas/common';
import { authorize } from '../security/scopes';
import { selectJob } from '../services/jobs';
import type { RunStatus, RunTrigger, SkipReason } from '@belfry/core';

export const MAX_POINTS = 1000;
const MAX_WINDOW_MS = 31 * 24 * 60 * 60 * 1000;

export const TimelineInput = z
  .strictObject({
    jobId: JobIdInput,
    from: z.iso.datetime({ offset: true }),
    to: z.iso.datetime({ offset: true }),
  })
  .refine((w) => Date.parse(w.from) < Date.parse(w.to), { path: ['to'], error: 'must be after from' })
  .refine((w) => Date.parse(w.to) - Date.parse(w.from) <= MAX_WINDOW_MS, {
    path: ['from'],
    error: 'window is at most 31 days',
  });

export interface TimelinePoint {
  id: string;
  scheduledTime: string;
  startedAt: string | null;
  finishedAt: string | null;
  status: RunStatus;
  skipReason: SkipReason | null;
  trigger: RunTrigger;
  attempts: number;
  /** started - scheduled, ms */
  lagMs: number | null;
  /** the last attempt's duration, ms */
  durationMs: number | null;
  httpStatus: number | null;
  error: string | null;
}

export interface Timeline {
  from: string;
  to: string;
  points: TimelinePoint[];
  /** more runs fell in the window than MAX_POINTS; the oldest were left out */
  truncated: boolean;
}

export async function jobTimeline(
  deps: ServiceDeps,
  actor: Actor,
  input: z.output<typeof TimelineInput>,
): Promise<Timeline> {
  authorize(actor, 'runs:read');
  if (!(await selectJob(deps.pool, actor.tenantId, input.jobId, { includeDeleted: true })))
    throw AppError.notFound('Job');
  const { rows } = await deps.pool.query<{
    id: string;
    scheduled_time: Date;
    started_at: Date | null;
    finished_at: Date | null;
    status: RunStatus;
    skip_reason: TimelinePoint['skipReason'];
    trigger: TimelinePoint['trigger'];
    attempt: number;
    duration_ms: number | null;
    http_status: number | null;
    error: string | null;
  }>(
    `SELECT r.id, r.scheduled_time, r.started_at, r.finished_at, r.status, r.skip_reason, r.trigger, r.attempt,
            CASE WHEN r.attempt_status IS NOT NULL THEN r.duration_ms ELSE a.duration_ms END AS duration_ms,
            CASE WHEN r.attempt_status IS NOT NULL THEN r.http_status ELSE a.http_status END AS http_status,
            COALESCE(a.error, r.last_error) AS error
       FROM runs r
       -- the run's current attempt: none yet while it is in progress (its row is written when it
       -- ends), and none when the engine's completion ended the run (the run row holds it:
       -- attempt_status, migration 20261207060000)
       LEFT JOIN run_attempts a
         ON a.run_id = r.id AND a.scheduled_time = r.scheduled_time AND a.attempt = r.attempt
      WHERE r.job_id = $1 AND r.tenant_id = $2 AND r.scheduled_time >= $3 AND r.scheduled_time < $4
      ORDER BY r.scheduled_time DESC, r.id DESC
      LIMIT ${MAX_POINTS + 1}`,
    [input.jobId, actor.tenantId, input.from, input.to],
  );
  const truncated = rows.length > MAX_POINTS;
  return {
    from: new Date(input.from).toISOString(),
    to: new Date(input.to).toISOString(),
    truncated,
    points: rows.slice(0, MAX_POINTS).map((r) => ({
      id: r.id,
      scheduledTime: r.scheduled_time.toISOString(),
      startedAt: r.started_at?.toISOString() ?? null,
      finishedAt: r.finished_at?.toISOString() ?? null,
      status: r.status,
      skipReason: r.skip_reason,
      trigger: r.trigger,
      attempts: r.attempt,
      lagMs: r.started_at ? Math.max(0, r.started_at.getTime() - r.scheduled_time.getTime()) : null,
      durationMs: r.duration_ms,
      httpStatus: r.http_status,
      error: r.error,
    })),
  };
}
