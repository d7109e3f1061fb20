// decideRetry: the one answer to "an attempt failed — what now?" for delivery failures,
// expired leases and failures reported by a pull-queue worker.
import { describe, expect, it } from 'vitest';
import { type AttemptFailure, decideRetry } from './retry-decision';
import type { RetryPolicy } from './retry';

const policy: RetryPolicy = { maxAttempts: 4, initialDelaySeconds: 10, maxDelaySeconds: 60 };
const now = new Date('2026-12-01T07:00:00.000Z');
const at = (ms: number) => ({ retryAt: new Date(now.getTime() + ms) });
const max = () => 0.999_999_999; // just below the top of the jitter range

describe('decideRetry', () => {
  it('retries a transient failure with exponential backoff from now, capped by maxDelaySeconds', () => {
    const failure: AttemptFailure = { failure: 'timeout' };
    expect(decideRetry(policy, 1, failure, now, max)).toEqual(at(9_999));
    expect(decideRetry(policy, 2, failure, now, max)).toEqual(at(19_999));
    expect(decideRetry(policy, 3, failure, now, max)).toEqual(at(39_999));
    expect(decideRetry({ ...policy, maxAttempts: 10 }, 5, failure, now, max)).toEqual(at(59_999));
  });

  it('applies full jitter: the delay is the random fraction of the backoff', () => {
    expect(decideRetry(policy, 2, { failure: 'connection' }, now, () => 0.25)).toEqual(at(5_000));
    expect(decideRetry(policy, 2, { failure: 'connection' }, now, () => 0)).toEqual(at(0));
  });

  it('honours Retry-After up to maxDelaySeconds', () => {
    const answered = (retryAfterMs: number): AttemptFailure => ({ failure: 'http', httpStatus: 429, retryAfterMs });
    expect(decideRetry(policy, 1, answered(30_000), now, () => 0)).toEqual(at(30_000));
    expect(decideRetry(policy, 1, answered(3_600_000), now, () => 0)).toEqual(at(60_000));
  });

  it('goes dead when the failure is not worth retrying, whatever attempts are left', () => {
    for (const failure of [
      { failure: 'http', httpStatus: 404 },
      { failure: 'http', httpStatus: 302 },
      { failure: 'refused' },
      { failure: 'invalid' },
    ] as AttemptFailure[]) {
      expect(decideRetry(policy, 1, failure, now, max), JSON.stringify(failure)).toEqual({
        dead: true,
        reason: 'final',
      });
    }
  });

  it('goes dead once maxAttempts attempts have failed', () => {
    expect(decideRetry(policy, 3, { failure: 'http', httpStatus: 503 }, now, max)).toHaveProperty('retryAt');
    expect(decideRetry(policy, 4, { failure: 'http', httpStatus: 503 }, now, max)).toEqual({
      dead: true,
      reason: 'exhausted',
    });
    expect(decideRetry({ ...policy, maxAttempts: 1 }, 1, { failure: 'timeout' }, now, max)).toEqual({
      dead: true,
      reason: 'exhausted',
    });
  });

  it('treats an expired lease as a failed attempt: backoff, then dead after maxAttempts', () => {
    expect(decideRetry(policy, 1, { failure: 'lease' }, now, max)).toEqual(at(9_999));
    expect(decideRetry(policy, 4, { failure: 'lease' }, now, max)).toEqual({ dead: true, reason: 'exhausted' });
  });

  it('takes a reported verdict as given (pull-queue completions)', () => {
    expect(decideRetry(policy, 1, { retryable: true }, now, max)).toEqual(at(9_999));
    expect(decideRetry(policy, 1, { retryable: true, retryAfterMs: 45_000 }, now, () => 0)).toEqual(at(45_000));
    expect(decideRetry(policy, 1, { retryable: false }, now, max)).toEqual({ dead: true, reason: 'final' });
    expect(decideRetry(policy, 4, { retryable: true }, now, max)).toEqual({ dead: true, reason: 'exhausted' });
  });
});
