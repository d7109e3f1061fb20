// The late watchdog: opens `late` incidents for occurrences that have not started
// lateAfterSeconds after they were due, and resolves them once nothing of the job is overdue.
// It reads only the database, so the web process runs it as well as every engine node: a frozen
// or dead engine fleet is still reported. Idempotent (one open incident per job and kind), so
// there is no leader to elect.
import { openLateIncidents, resolveLateIncidents, withTransaction } from '@belfry/db';
import type pg from 'pg';
import type { DispatcherLog } from './dispatcher';

export class LateWatchdog {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;
  private stopped = true;

  constructor(
    private readonly pool: pg.Pool,
    private readonly config: { intervalMs: number },
    private readonly log: DispatcherLog,
  ) {}

  start(): void {
    this.stopped = false;
    const loop = () => {
      if (this.stopped) return;
      this.timer = setTimeout(() => {
        this.running = this.checkOnce()
          .catch((err) => this.log.error({ err }, 'late watchdog failed'))
          .finally(loop);
      }, this.config.intervalMs);
    };
    loop();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }

  async checkOnce(): Promise<{ opened: number; resolved: number }> {
    const opened = await withTransaction(this.pool, (tx) => openLateIncidents(tx), { maxTries: 3 });
    const resolved = await withTransaction(this.pool, (tx) => resolveLateIncidents(tx), { maxTries: 3 });
    if (opened || resolved) this.log.info({ opened, resolved }, 'late incidents changed');
    return { opened, resolved };
  }
}
