// The one decision of what happens after a failed attempt: retry at a time, or dead. Every
// place that ends an attempt unsuccessfully asks it — the engine worker (a delivery failed),
// the reaper (a lease expired: the worker died), and pull-queue completions (a tenant's
// worker reports failure, or its lease expires) — so backoff, Retry-After and maxAttempts
// mean the same everywhere. Pure: the clock and the randomness are passed in.
import { type FailureKind, isRetryable, type RetryPolicy, retryDelayMs } from './retry';

/** How an attempt failed, as far as retrying goes. */
export type AttemptFailure =
  /** a failure Belfry observed: its kind (and HTTP status) decide whether it is worth retrying */
  | { failure: FailureKind; httpStatus?: number | null; retryAfterMs?: number | null }
  /** a verdict reported by whoever ran the attempt (a pull-queue worker's completion) */
  | { retryable: boolean; retryAfterMs?: number | null };

export type RetryDecision =
  | { retryAt: Date }
  | {
      dead: true;
      /** 'exhausted': maxAttempts reached; 'final': the failure is not worth retrying */
      reason: 'exhausted' | 'final';
    };

function retryableOf(outcome: AttemptFailure): boolean {
  return 'retryable' in outcome ? outcome.retryable : isRetryable(outcome.failure, outcome.httpStatus ?? null);
}

/**
 * After attempt number `attempt` (1-based) failed: when to try again, or dead. A retry waits
 * `retryDelayMs` (exponential backoff with full jitter, at least a Retry-After, at most
 * maxDelaySeconds) from `now`.
 */
export function decideRetry(
  policy: RetryPolicy,
  attempt: number,
  outcome: AttemptFailure,
  now: Date,
  random: () => number,
): RetryDecision {
  if (!retryableOf(outcome)) return { dead: true, reason: 'final' };
  if (!(attempt < policy.maxAttempts)) return { dead: true, reason: 'exhausted' };
  return { retryAt: new Date(now.getTime() + retryDelayMs(policy, attempt, random, outcome.retryAfterMs ?? null)) };
}
