// What an attempt's end means for its run and attempt rows: succeeded; released (the node shuts
// down, the run belongs to another lane now, or a run claimed ahead could not be confirmed
// before its start) so it runs again at once; or failed, with the
// one retry decision (decideRetry) choosing between a retry time and dead. Pure.
import { decideRetry } from '@belfry/core';
import type { AttemptOutcome, ClaimedRun } from '@belfry/db';
import { type HandlerOutcome, storedHeaders } from '@belfry/handlers';

/** Why this worker stopped an attempt itself, if it did. */
export type StopReason = 'cancelled' | 'lease-lost' | 'shutdown' | 'rerouted' | 'unconfirmed';

export function attemptOutcome(
  run: ClaimedRun,
  outcome: HandlerOutcome,
  stopped: StopReason | null,
  now: Date,
  random: () => number,
): AttemptOutcome {
  const base = {
    runId: run.id,
    scheduledTime: run.scheduled_time,
    attempt: run.attempt,
    httpStatus: outcome.httpStatus ?? null,
    durationMs: Math.round(outcome.durationMs),
    responseSnippet: outcome.responseSnippet ?? null,
    // without the headers the run itself says (the run page puts them back)
    requestHeaders: outcome.requestHeaders ? storedHeaders(outcome.requestHeaders) : null,
    exitCode: outcome.exitCode ?? null,
  };
  if (outcome.ok) {
    return { ...base, runStatus: 'succeeded', attemptStatus: 'succeeded', nextAttemptAt: null, error: null };
  }
  if (stopped === 'shutdown' || stopped === 'rerouted' || stopped === 'unconfirmed') {
    // Released, not failed: another node (or the run's own lane) picks the run up at once. The
    // target was not called, so the attempt does not spend the job's retries — a run claimed
    // ahead whose start check met a database restart is delivered once it is back.
    return {
      ...base,
      runStatus: 'pending',
      attemptStatus: 'cancelled',
      nextAttemptAt: now,
      error: stopped === 'shutdown' ? 'released: worker shutting down' : (outcome.error ?? 'rerouted'),
    };
  }
  const error = outcome.error ?? 'failed';
  const decision = decideRetry(
    {
      maxAttempts: run.retry_max_attempts,
      initialDelaySeconds: run.retry_initial_delay_seconds,
      maxDelaySeconds: run.retry_max_delay_seconds,
    },
    run.attempt,
    {
      failure: outcome.failure ?? 'invalid',
      httpStatus: outcome.httpStatus ?? null,
      retryAfterMs: outcome.retryAfterMs ?? null,
    },
    now,
    random,
  );
  if ('retryAt' in decision) {
    return { ...base, runStatus: 'failed', attemptStatus: 'failed', nextAttemptAt: decision.retryAt, error };
  }
  return { ...base, runStatus: 'dead', attemptStatus: 'failed', nextAttemptAt: null, error };
}
