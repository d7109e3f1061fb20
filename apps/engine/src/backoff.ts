// How an engine loop waits after a failure — the database away, a connection killed: an
// exponential delay with "equal jitter" (half of it fixed, half random), so a loop never spins
// while the database is down, nodes that lost it together do not come back in lockstep, and
// the first success resets the delay so work resumes at full pace. The randomness is injected.
import { FailureStreak, type LineLogger } from '@belfry/log';

export interface BackoffOptions {
  /** the delay after the first failure (before jitter) */
  initialMs: number;
  /** the longest delay (before jitter) */
  maxMs: number;
  random?: () => number;
}

/** The delay before try number `failures + 1`, after `failures` (>= 1) failures in a row. */
export function backoffDelayMs(failures: number, options: BackoffOptions, random = options.random ?? Math.random) {
  const exponent = Math.max(0, Math.min(Math.floor(failures) - 1, 30));
  const base = Math.min(options.maxMs, options.initialMs * 2 ** exponent);
  const r = random();
  const unit = Number.isFinite(r) ? Math.min(Math.max(r, 0), 1) : 0;
  return Math.round(base / 2 + (base / 2) * unit);
}

/** A loop's failures in a row, and the delay they call for. */
export class Backoff {
  private failures = 0;

  constructor(private readonly options: BackoffOptions) {}

  /** Records a failure; answers how long to wait before trying again. */
  fail(): number {
    this.failures++;
    return backoffDelayMs(this.failures, this.options);
  }

  succeed(): void {
    this.failures = 0;
  }

  /** failures in a row so far (0: the last try succeeded) */
  get streak(): number {
    return this.failures;
  }
}

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
