// The database's clock as seen from this node. "Due" is always judged by PostgreSQL's now();
// timers on this node are armed against that clock, corrected for this node's offset, so a
// skewed node clock neither starts runs early nor late.
import type pg from 'pg';

export class DbClock {
  private offsetMs = 0;
  private errorMs = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly pool: pg.Pool) {}

  now(): number {
    return Date.now() + this.offsetMs;
  }

  get offset(): number {
    return this.offsetMs;
  }

  /** how far off now() may be: half the round trip of the best sync */
  get uncertainty(): number {
    return this.errorMs;
  }

  async sync(): Promise<void> {
    let best = Number.POSITIVE_INFINITY;
    for (let i = 0; i < 3; i++) {
      const before = Date.now();
      const { rows } = await this.pool.query<{ ms: string }>(
        `SELECT (extract(epoch from clock_timestamp()) * 1000)::text AS ms`,
      );
      const after = Date.now();
      const rtt = after - before;
      if (rtt < best) {
        best = rtt;
        this.offsetMs = Number(rows[0]?.ms) - (before + rtt / 2);
        this.errorMs = Math.ceil(rtt / 2);
      }
    }
  }

  async start(intervalMs = 60_000): Promise<void> {
    await this.sync();
    this.timer = setInterval(() => void this.sync().catch(() => {}), intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }
}
