// What the worker pool does when a fetch fails — most likely the database is away: no fetch
// starts for a while (growing with failures in a row, jittered), then the pool is pumped again.
// The ready queues stay marked meanwhile, so nothing that was ready is forgotten, and the
// first fetch that succeeds ends the pause for good.
import { FailedRounds } from '../backoff';
import type { Log } from '../logger';

export class ClaimPause {
  private until = 0;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private readonly failures: FailedRounds;

  constructor(
    /** called when the pause is over */
    private readonly resume: () => void,
    log: Log,
  ) {
    this.failures = new FailedRounds(log, 'fetch and claim', { initialMs: 200, maxMs: 2_000 });
  }

  get paused(): boolean {
    return Date.now() < this.until;
  }

  succeeded(): void {
    this.failures.succeeded();
  }

  failed(err: unknown, fields: Record<string, unknown>): void {
    // The first failure with its stack, then the 2nd, 4th, 8th … as one short line each.
    const delayMs = this.failures.failed(err, fields);
    this.until = Math.max(this.until, Date.now() + delayMs);
    if (this.timer || this.stopped) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.resume();
    }, this.until - Date.now());
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
  }
}
