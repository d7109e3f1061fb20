// What the worker pool does when a fetch fails — most likely the database is away: no fetch
// starts for a while (growing with failures in a row, jittered), then the pool is pumped again.
// The ready queues stay marked meanwhile, so nothing that was ready is forgotten, and the
// first fetch that succeeds ends the pause for good.
import { Backoff } from '../backoff';
import type { Log } from '../logger';

export class ClaimPause {
  private until = 0;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private readonly backoff = new Backoff({ initialMs: 200, maxMs: 2_000 });

  constructor(
    /** called when the pause is over */
    private readonly resume: () => void,
    private readonly log: Log,
  ) {}

  get paused(): boolean {
    return Date.now() < this.until;
  }

  succeeded(): void {
    this.backoff.succeed();
  }

  failed(err: unknown, fields: Record<string, unknown>): void {
    const delayMs = this.backoff.fail();
    this.until = Math.max(this.until, Date.now() + delayMs);
    // The first failure with its stack; the rest of an outage one line each, at most a few a second.
    if (this.backoff.streak === 1) this.log.error({ err, ...fields, delayMs }, 'fetch and claim failed');
    else
      this.log.warn(
        { err: (err as Error)?.message, failures: this.backoff.streak, delayMs },
        'fetch and claim failed again',
      );
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
