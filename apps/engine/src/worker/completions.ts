// Batches attempt outcomes into one fenced transaction every few milliseconds: the run and
// attempt rows are updated only where this worker still holds the lease, and retries are
// enqueued in the same transaction (to the queue the caller routed them to). Each caller learns
// whether its outcome was recorded. An outcome is never dropped because the database was away:
// the batch is kept and written again (with backoff) until it is recorded or fenced out — the
// target was called, and forgetting that would have the reaper call it again.
import { Backoff, type QueueRoute } from '@belfry/core';
import {
  completeAttempts,
  distinctTimes,
  enqueueRuns,
  pgExecutor,
  type AttemptOutcome,
  type CompletedRun,
  type QueueClient,
  isTransientDatabaseError,
  withTransaction,
} from '@belfry/db';
import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';
import type { Log } from '../logger';

interface Pending {
  outcome: AttemptOutcome;
  /** where a retry (or a released run) is queued */
  route: QueueRoute;
  resolve: (recorded: boolean) => void;
  reject: (err: unknown) => void;
}

export class CompletionBatcher {
  private queue: Pending[] = [];
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();
  private readonly backoff = new Backoff({ initialMs: 100, maxMs: 2_000 });
  /** set by giveUpAfter(): a batch the database keeps refusing is given up at this time */
  private giveUpAt = Number.POSITIVE_INFINITY;

  constructor(
    private readonly pool: pg.Pool,
    private readonly boss: QueueClient,
    private readonly workerId: string,
    private readonly log: Log,
    private readonly flushMs = 5,
    private readonly maxBatch = 200,
    /** a batch that keeps growing is written at the latest this long after its first outcome */
    private readonly maxWaitMs = 25,
  ) {}

  /** when the oldest unwritten outcome and the latest one were submitted (performance.now()) */
  private firstAt = 0;
  private lastAt = 0;

  /** Resolves true when recorded, false when fenced out (lease lost, run cancelled). */
  submit(outcome: AttemptOutcome, route: QueueRoute): Promise<boolean> {
    return new Promise((resolve, reject) => {
      const now = performance.now();
      if (!this.queue.length) this.firstAt = now;
      this.lastAt = now;
      this.queue.push({ outcome, route, resolve, reject });
      if (this.queue.length >= this.maxBatch) this.kick(0);
      else this.kick(this.flushMs);
    });
  }

  private kick(delay: number): void {
    if (this.timer && delay > 0) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.due(delay > 0), delay);
  }

  /**
   * The batch is written once outcomes stop arriving for flushMs, when it is full, or maxWaitMs
   * after its first outcome. A burst of deliveries (a second's runs due at once) finishes over
   * a few hundred milliseconds; writing every 5 ms made dozens of small transactions, each a
   * commit (a WAL flush) competing with the burst's own deliveries for the CPU.
   */
  private due(waited: boolean): void {
    this.timer = undefined;
    if (waited && this.queue.length < this.maxBatch) {
      const now = performance.now();
      const quietIn = this.lastAt + this.flushMs - now;
      const capIn = this.firstAt + this.maxWaitMs - now;
      const wait = Math.min(quietIn, capIn);
      if (wait >= 1) {
        this.timer = setTimeout(() => this.due(true), wait);
        return;
      }
    }
    this.flushing = this.flushing.then(() => this.flush());
  }

  /**
   * A stopping node: outcomes the database keeps refusing are retried for at most `timeoutMs`
   * more, then given up (the reaper takes their runs once their leases expire).
   */
  giveUpAfter(timeoutMs: number): void {
    this.giveUpAt = Math.min(this.giveUpAt, Date.now() + timeoutMs);
  }

  /** Writes what is pending. */
  async drain(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.flushing = this.flushing.then(() => this.flush());
    await this.flushing;
  }

  private async flush(): Promise<void> {
    while (this.queue.length) {
      const batch = this.queue.splice(0, this.maxBatch);
      if (this.queue.length) this.firstAt = performance.now();
      for (;;) {
        try {
          const recorded = await this.write(batch);
          if (this.backoff.streak)
            this.log.info({ size: batch.length }, 'outcomes recorded after the database came back');
          this.backoff.succeed();
          for (const p of batch) p.resolve(recorded.has(p.outcome.runId));
          break;
        } catch (err) {
          const delayMs = this.backoff.fail();
          if (!isTransientDatabaseError(err) || Date.now() + delayMs > this.giveUpAt) {
            this.log.error({ err, size: batch.length }, 'recording outcomes failed; giving them up');
            for (const p of batch) p.reject(err);
            break;
          }
          if (this.backoff.streak === 1)
            this.log.warn({ err, size: batch.length, delayMs }, 'recording outcomes failed; keeping them to try again');
          await sleep(delayMs);
        }
      }
    }
  }

  private async write(batch: Pending[]): Promise<Set<string>> {
    // Rows are locked in one order (by id) in every batch, so two batches cannot deadlock.
    const outcomes = batch.map((p) => p.outcome).sort((a, b) => (a.runId < b.runId ? -1 : a.runId > b.runId ? 1 : 0));
    const byId = new Map(batch.map((p) => [p.outcome.runId, p]));
    // Deadlocks and serialization failures are transient: the whole batch is run again.
    return withTransaction(
      this.pool,
      async (client) => {
        const done: CompletedRun[] = await completeAttempts(client, this.workerId, outcomes);
        const again = done.filter((r) => r.status === 'failed' || r.status === 'pending');
        await enqueueRuns(
          this.boss,
          pgExecutor(client),
          again.map((r) => {
            const pending = byId.get(r.id) as Pending;
            return {
              runId: r.id,
              route: pending.route,
              scheduledTime: r.scheduled_time,
              startAfter: pending.outcome.nextAttemptAt ?? new Date(),
            };
          }),
        );
        const recorded = new Set(done.map((r) => r.id));
        const stale = outcomes.filter((o) => !recorded.has(o.runId));
        if (stale.length) {
          // A run cancelled while it ran: record its attempt so history shows what happened (once;
          // an attempt row still open from before the upgrade that wrote attempts at their end is closed).
          await client.query(
            `INSERT INTO run_attempts (run_id, scheduled_time, tenant_id, job_id, attempt, worker_id, status, started_at,
                                      finished_at, http_status, duration_ms, error)
             SELECT r.id, r.scheduled_time, r.tenant_id, r.job_id, r.attempt, r.worker_id, 'cancelled',
                    COALESCE(r.attempt_started_at, r.started_at, now()), now(), s.http_status, s.duration_ms,
                    'run cancelled while running'
               FROM unnest($2::text[], $3::timestamptz[], $4::int[], $5::int[], $6::int[]) AS s(run_id, scheduled_time, attempt, http_status, duration_ms)
               JOIN runs r ON r.id = s.run_id AND r.scheduled_time = s.scheduled_time AND r.status = 'cancelled'
                 AND r.scheduled_time = ANY($7::timestamptz[]) AND r.attempt = s.attempt AND r.worker_id = $1
             ON CONFLICT (run_id, scheduled_time, attempt) DO UPDATE
                SET status = 'cancelled', finished_at = now(), http_status = excluded.http_status,
                    duration_ms = excluded.duration_ms, error = excluded.error
              WHERE run_attempts.status = 'running' AND run_attempts.worker_id = $1`,
            [
              this.workerId,
              stale.map((o) => o.runId),
              stale.map((o) => o.scheduledTime),
              stale.map((o) => o.attempt),
              stale.map((o) => o.httpStatus),
              stale.map((o) => o.durationMs),
              distinctTimes(stale.map((o) => o.scheduledTime)),
            ],
          );
        }
        return recorded;
      },
      { maxTries: 5, namedStatements: true },
    );
  }
}
