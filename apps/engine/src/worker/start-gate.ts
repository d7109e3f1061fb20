// The last check before a run claimed ahead of its time calls its target: is it still this
// worker's (not cancelled by a pause, delete or cancel, not taken back by the reaper) and due
// by the database clock? The cancel notification usually stops such a run while it waits, but
// a notification can arrive late (a busy or paused process reads its timers before its
// socket); this check cannot, because it meets the canceller on the run's row (see
// @belfry/db cancel-claimed-ahead). Runs that come due together are checked in one query.
import { confirmRunStarts, type ClaimedRun } from '@belfry/db';
import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';
import type { Log } from '../logger';

const MAX_BATCH = 1000;

interface Waiter {
  run: ClaimedRun;
  resolve: (answer: { held: boolean; due: boolean; dbNowMs: number }) => void;
  reject: (err: unknown) => void;
}

export class StartGate {
  private waiting: Waiter[] = [];
  private scheduled = false;

  constructor(
    private readonly pool: pg.Pool,
    private readonly workerId: string,
    private readonly log: Log,
  ) {}

  /**
   * True when the run may start now. False when it was cancelled or taken back meanwhile, or
   * `signal` aborted the wait. A database error is thrown: the target must not be called
   * when nobody can say whether the run is still ours.
   */
  async confirm(run: ClaimedRun, signal: AbortSignal): Promise<boolean> {
    for (;;) {
      if (signal.aborted) return false;
      const answer = await this.check(run);
      if (!answer.held) {
        this.log.info(
          { runId: run.id, jobId: run.job_id, tenantId: run.tenant_id },
          'run was cancelled or taken back before it started; its target was not called',
        );
        return false;
      }
      if (answer.due) return true;
      // This node's estimate of the database clock ran a little early: wait the rest.
      try {
        await sleep(Math.max(1, run.due_at.getTime() - answer.dbNowMs + 1), undefined, { signal });
      } catch {
        return false;
      }
    }
  }

  private check(run: ClaimedRun): Promise<{ held: boolean; due: boolean; dbNowMs: number }> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ run, resolve, reject });
      if (this.scheduled) return;
      this.scheduled = true;
      setImmediate(() => {
        this.scheduled = false;
        void this.flush();
      });
    });
  }

  private async flush(): Promise<void> {
    const all = this.waiting;
    this.waiting = [];
    for (let i = 0; i < all.length; i += MAX_BATCH) {
      const batch = all.slice(i, i + MAX_BATCH);
      try {
        const { held, dbNowMs } = await confirmRunStarts(
          this.pool,
          this.workerId,
          batch.map((w) => ({ id: w.run.id, scheduledTime: w.run.scheduled_time, attempt: w.run.attempt })),
        );
        for (const w of batch) {
          const h = held.get(w.run.id);
          w.resolve({ held: Boolean(h), due: h?.due ?? false, dbNowMs });
        }
      } catch (err) {
        for (const w of batch) w.reject(err);
      }
    }
  }
}
