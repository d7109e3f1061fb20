// An attempt's outcome as a worker reports a 200 answer, for the tests that complete runs: each
// names the run and overrides only what it looks at.
import type { AttemptOutcome } from '../src/index';

export function succeededOutcome(
  run: { id: string; scheduled_time: Date; attempt?: number },
  fields: Partial<AttemptOutcome> = {},
): AttemptOutcome {
  return {
    runId: run.id,
    scheduledTime: run.scheduled_time,
    attempt: run.attempt ?? 1,
    runStatus: 'succeeded',
    attemptStatus: 'succeeded',
    nextAttemptAt: null,
    httpStatus: 200,
    durationMs: 1,
    error: null,
    responseSnippet: null,
    requestHeaders: null,
    ...fields,
  };
}
