// The late watchdog: opens `late` incidents for occurrences that have not started
// lateAfterSeconds after they were due, and resolves them once nothing of the job is overdue.
// It reads only the database, so the web process runs it as well as every engine node: a frozen
// or dead engine fleet is still reported. Idempotent (one open incident per job and kind), so
// there is no leader to elect.
import { PeriodicTask } from '@belfry/core';
import { openLateIncidents, resolveLateIncidents, withTransaction } from '@belfry/db';
import { FailureStreak } from '@belfry/log';
import type pg from 'pg';
import type { DispatcherLog } from './dispatcher';

export class LateWatchdog {
  private readonly loop: PeriodicTask;

  constructor(
    private readonly pool: pg.Pool,
    config: { intervalMs: number },
    private readonly log: DispatcherLog,
  ) {
    const failures = new FailureStreak(log, 'late watchdog');
    this.loop = new PeriodicTask(
      () => this.checkOnce(),
      config.intervalMs,
      (err) => failures.failed(err),
      () => failures.succeeded(),
    );
  }

  start(): void {
    this.loop.start();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  async checkOnce(): Promise<{ opened: number; resolved: number }> {
    const opened = await withTransaction(this.pool, (tx) => openLateIncidents(tx), { maxTries: 3 });
    const resolved = await withTransaction(this.pool, (tx) => resolveLateIncidents(tx), { maxTries: 3 });
    if (opened || resolved) this.log.info({ opened, resolved }, 'late incidents changed');
    return { opened, resolved };
  }
}
