// How a loop waits after a failure — the database away, a connection killed, a server that will
// not start: an exponential delay with "equal jitter" (half of it fixed, half random), so a loop
// never spins while what it needs is down, processes that lost it together do not come back in
// lockstep, and the first success resets the delay so work resumes at full pace. Pure: the
// randomness is injected. (A run's retries follow its job's policy instead: retry.ts.)

export interface BackoffOptions {
  /** the delay after the first failure (before jitter) */
  initialMs: number;
  /** the longest delay (before jitter) */
  maxMs: number;
  /** in [0, 1]; () => 1 waits the whole base delay every time (no jitter) */
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
