// The last check before a run claimed ahead of its time calls its target: is it still this
// worker's (not cancelled by a pause, delete or cancel, not taken back by the reaper)? It is
// made at the run's commit point, START_COMMIT_MS before it is due, where the start is settled
// (see @belfry/db cancel-claimed-ahead): the cancel notification usually stops such a run while
// it waits, but a notification can arrive late (a busy or paused process reads its timers
// before its socket); this check cannot, because it meets the canceller on the run's row. Then
// the run waits out the rest on the database clock of the answer, so the target is called when
// due, never earlier, with no round trip left on the due instant. Runs whose commit points come
// together are checked in one query.
import { type ClaimedRun, confirmRunStarts, START_COMMIT_MS } from '@belfry/db';
import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';
import type { Log } from '../logger';

const MAX_BATCH = 1000;

interface Waiter {
  run: ClaimedRun;
  resolve: (answer: { held: boolean; committed: boolean; dbNowMs: number }) => void;
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
   * True when the run may start now: it is still this worker's, its start is settled, and it is
   * due by the database clock. False when it was cancelled or taken back meanwhile, or `signal`
   * aborted the wait (also after the start was settled: a cancelled run never starts). A
   * database error is thrown: the target must not be called when nobody can say whether the
   * run is still ours.
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
      // Settled: wait until due on the answer's clock (the database's, read before the answer
      // arrived, so the wait can only end late, never early). Not yet (this node's estimate of
      // the database clock ran a little early): wait for the commit point and ask again.
      const until = run.due_at.getTime() - (answer.committed ? 0 : START_COMMIT_MS);
      const rest = until - answer.dbNowMs + 1;
      if (answer.committed && rest <= 0) return true;
      try {
        await sleep(Math.max(1, rest), undefined, { signal });
      } catch {
        return false;
      }
      if (answer.committed) return !signal.aborted;
    }
  }

  private check(run: ClaimedRun): Promise<{ held: boolean; committed: boolean; dbNowMs: number }> {
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
          w.resolve({ held: Boolean(h), committed: h?.committed ?? false, dbNowMs });
        }
      } catch (err) {
        for (const w of batch) w.reject(err);
      }
    }
  }
}
