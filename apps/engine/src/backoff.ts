// An engine loop's failed rounds: the delay before the next try (Backoff, @belfry/core) and the
// log lines (FailureStreak, @belfry/log) from one count.
import { Backoff, type BackoffOptions } from '@belfry/core';
import { FailureStreak, type LineLogger } from '@belfry/log';

/**
 * A loop's failed rounds in a row, counted once for both things they decide: how long to wait
 * before the next try (Backoff) and which lines to log (FailureStreak: the first failure with its
 * stack, then the 2nd, 4th, 8th … as one short line each, and one line when it works again).
 */
export class FailedRounds {
  private readonly backoff: Backoff;
  private readonly lines: FailureStreak;

  constructor(log: LineLogger, what: string, options: BackoffOptions) {
    this.backoff = new Backoff(options);
    this.lines = new FailureStreak(log, what);
  }

  /** Records a failed round; answers the delay before the next one (at least `atLeastMs`), which its line reports. */
  failed(err: unknown, fields: object = {}, atLeastMs = 0): number {
    const delayMs = Math.max(atLeastMs, this.backoff.fail());
    this.lines.failed(err, { ...fields, delayMs });
    return delayMs;
  }

  /** A round worked: the next failure waits the shortest delay again (one line if a streak ended). */
  succeeded(): void {
    if (!this.backoff.streak) return;
    this.backoff.succeed();
    this.lines.succeeded();
  }

  /** failed rounds in a row so far */
  get streak(): number {
    return this.backoff.streak;
  }
}
