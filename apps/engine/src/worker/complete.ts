// Ends an attempt: turns the handler's outcome into the run's and attempt's new state
// (outcome.ts), records it fenced by the lease in the next completion batch — a retry or a
// released run is queued again where its target kind routes it — and counts and logs the result.
import type { HandlerOutcome } from '@belfry/handlers';
import { routeOf } from '@belfry/handlers';
import type { DbClock } from '../db-clock';
import type { Log } from '../logger';
import type { Metrics } from '../metrics';
import type { CompletionBatcher } from './completions';
import type { Execution } from './execute';
import { attemptOutcome } from './outcome';

export interface CompleteDeps {
  completions: CompletionBatcher;
  clock: DbClock;
  metrics?: Metrics | undefined;
  /** debug lines are written (successes are logged at debug) */
  debug?: boolean;
}

/** Resolves true when the outcome was recorded, false when this worker no longer held the run. */
export async function completeAttempt(
  deps: CompleteDeps,
  execution: Execution,
  outcome: HandlerOutcome,
  /** the run's logger, made on first use */
  log: () => Log,
): Promise<boolean> {
  const { run } = execution;
  const record = attemptOutcome(run, outcome, execution.reason, new Date(deps.clock.now()), Math.random);
  const recorded = await deps.completions.submit(record, routeOf(run.target, run.tenant_id, run.priority));
  const label = recorded ? (record.runStatus === 'failed' ? 'retry' : record.runStatus) : 'stale';
  deps.metrics?.runsFinished.inc({ outcome: label });
  if (recorded) {
    // Successes are the bulk (thousands a second at peak): debug. Failures are worth a line.
    const succeeded = record.runStatus === 'succeeded';
    if (!succeeded || deps.debug) {
      const fields = { status: record.runStatus, httpStatus: outcome.httpStatus, durationMs: outcome.durationMs };
      if (succeeded) log().debug(fields, 'attempt finished');
      else log().info({ ...fields, error: record.error }, 'attempt finished');
    }
  } else log().warn({ reason: execution.reason }, 'stale completion rejected: this worker no longer holds the run');
  return recorded;
}
