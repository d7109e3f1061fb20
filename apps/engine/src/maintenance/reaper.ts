// Takes back runs whose worker died (lease expired). A lease that expired is a failed attempt:
// the lost attempt is closed as failed and the run is retried with backoff, or goes dead when
// its attempts are used up (decideRetry, the same decision as for a failed delivery), so a
// target that kills its worker every time ends in the dead letter. Runs on every worker node;
// row locks with SKIP LOCKED keep two reapers from taking the same run. Container runs are not
// reaped while their container lives: a node on the same Docker Engine looks for it (and leaves
// it to the container sweeper, which adopts it); others wait until it is long past its timeout.
import { decideRetry } from '@belfry/core';
import {
  enqueueRuns,
  type ExpiredRun,
  type ExpiredRunVerdict,
  failExpiredRuns,
  type PassedLease,
  pgExecutor,
  refreshLeaseHints,
  type QueueClient,
  selectExpiredRuns,
  sweepOpenRuns,
  sweepRunningRuns,
  withTransaction,
} from '@belfry/db';
import { routeOf } from '@belfry/handlers';
import type pg from 'pg';
import { FailedRounds } from '../backoff';
import type { Log } from '../logger';
import type { Metrics } from '../metrics';

/** What the reaper may ask this node's Docker Engine (container lane nodes only). */
export interface ContainerPresence {
  /** this node's Docker Engine ID, null while it does not answer */
  engineId(): string | null;
  /** whether the container of this run's attempt exists there (running or not) */
  exists(runId: string, attempt: number): Promise<boolean>;
}

export interface ReaperConfig {
  intervalMs: number;
  batchSize: number;
  /** the jitter source of the backoff; tests pin it */
  random?: () => number;
  /**
   * After the database was away, how long to wait before reaping again: leases expired
   * during the outage only because nobody could renew them, and their workers need a moment
   * to renew them and record the outcomes they kept. Default 0.
   */
  recoveryGraceMs?: number;
  /**
   * A scan for expired leases that takes longer than this was probably held up by the same
   * outage (a network path gone dark) that kept workers from renewing: it is given up and
   * counted as one. Default: no limit.
   */
  maxScanMs?: number;
}

/** reaper passes per sweep of both lists (at the default 2 s interval: every 30 s) */
const SWEEP_EVERY = 15;

/** A scan that took so long that what it found cannot be trusted to mean "worker dead". */
class HeldUpScan extends Error {
  override name = 'HeldUpScan';
}

export class Reaper {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;
  private stopped = true;
  private outage = false;
  private quietUntil = 0;
  private passes = 0;
  private readonly passFailures: FailedRounds;

  constructor(
    private readonly pool: pg.Pool,
    private readonly boss: QueueClient,
    private readonly config: ReaperConfig,
    private readonly log: Log,
    private readonly metrics?: Metrics,
    private readonly containers?: ContainerPresence,
  ) {
    this.passFailures = new FailedRounds(log, 'reaper', { initialMs: 500, maxMs: 5_000 });
  }

  start(): void {
    this.stopped = false;
    const loop = (delayMs: number) => {
      if (this.stopped) return;
      this.timer = setTimeout(() => {
        this.running = this.pass().then(
          () => {
            this.passFailures.succeeded();
            loop(this.config.intervalMs);
          },
          (err) => {
            this.outage = true;
            loop(this.passFailures.failed(err, {}, this.config.intervalMs));
          },
        );
      }, delayMs);
    };
    loop(this.config.intervalMs);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }

  /** Drops container runs whose container still exists on this node's engine (the sweeper adopts them). */
  private async leaveLiveContainers(expired: ExpiredRun[], engineId: string | null): Promise<ExpiredRun[]> {
    const containers = this.containers;
    if (!containers || !engineId) return expired;
    const keep = await Promise.all(
      expired.map(async (run) => {
        if (run.target_type !== 'container' || run.worker_docker_engine !== engineId) return true;
        try {
          return !(await containers.exists(run.id, run.attempt));
        } catch {
          return false; // the engine did not answer: decide next time
        }
      }),
    );
    return expired.filter((_, i) => keep[i]);
  }

  private async pass(): Promise<void> {
    if (this.outage) {
      await this.pool.query('SELECT 1');
      this.outage = false;
      this.quietUntil = Date.now() + (this.config.recoveryGraceMs ?? 0);
      this.log.info(
        { graceMs: this.config.recoveryGraceMs ?? 0 },
        'database back; reaping resumes after a grace period',
      );
    }
    if (Date.now() < this.quietUntil) return;
    await this.reapOnce();
    if (++this.passes % SWEEP_EVERY === 0) await this.sweep();
  }

  /**
   * The list of running runs the scan reads (pull workers' claims; an engine's claim leases the
   * run in its open_runs row instead) keeps only runs that may still run. Every ender
   * unlists its run in the statement that ends it; a row is left only by a process of the
   * previous version or history trimmed under a running run — but each one is read by every
   * scan, so the sweep goes on until it finds fewer than a batch. Its own failure is logged and
   * left to the next sweep: it must not hold up reaping.
   */
  private async sweep(): Promise<void> {
    try {
      let swept = 0;
      for (;;) {
        const n = await sweepRunningRuns(this.pool, this.config.batchSize);
        swept += n;
        if (n < this.config.batchSize || this.stopped) break;
      }
      if (swept) this.log.info({ swept }, 'swept finished runs from the list of running runs');
    } catch (err) {
      this.log.warn({ err: (err as Error)?.message }, 'sweeping the list of running runs failed; next time');
    }
    // The list of open runs (open-runs.ts in @belfry/db): every ender unlists its run, so a
    // batch a sweep keeps up with what is left behind (nothing, normally).
    try {
      const swept = await sweepOpenRuns(this.pool, this.config.batchSize);
      if (swept) this.log.info({ swept }, 'swept finished runs from the list of open runs');
    } catch (err) {
      this.log.warn({ err: (err as Error)?.message }, 'sweeping the list of open runs failed; next time');
    }
  }

  async reapOnce(): Promise<number> {
    const random = this.config.random ?? Math.random;
    // From before the connection is taken: a BEGIN held up by the outage counts too.
    const scanStarted = Date.now();
    const passedLeases: PassedLease[] = [];
    const { reaped, retried, workers } = await withTransaction(
      this.pool,
      async (client) => {
        const engineId = this.containers?.engineId() ?? null;
        passedLeases.length = 0; // (a transaction run again starts over)
        const scanned = await selectExpiredRuns(client, this.config.batchSize, {
          dockerEngineId: engineId,
          passedLeases,
        });
        if (scanned.length && Date.now() - scanStarted > (this.config.maxScanMs ?? Number.POSITIVE_INFINITY)) {
          throw new HeldUpScan(`the scan for expired leases took ${Date.now() - scanStarted} ms; not reaping on it`);
        }
        const expired = await this.leaveLiveContainers(scanned, engineId);
        const verdicts: ExpiredRunVerdict[] = expired.map((run) => {
          const decision = decideRetry(
            {
              maxAttempts: run.retry_max_attempts,
              initialDelaySeconds: run.retry_initial_delay_seconds,
              maxDelaySeconds: run.retry_max_delay_seconds,
            },
            run.attempt,
            { failure: 'lease' },
            run.db_now,
            random,
          );
          const retryAt = 'retryAt' in decision ? decision.retryAt : null;
          return {
            id: run.id,
            scheduledTime: run.scheduled_time,
            attempt: run.attempt,
            status: retryAt ? 'failed' : 'dead',
            nextAttemptAt: retryAt,
            error: `lease expired: worker ${run.worker_id ?? '?'} stopped heartbeating`,
          };
        });
        const moved = new Set(await failExpiredRuns(client, verdicts));
        const retry = verdicts.filter((v) => v.nextAttemptAt && moved.has(v.id));
        const byId = new Map(expired.map((r) => [r.id, r]));
        await enqueueRuns(
          this.boss,
          pgExecutor(client),
          retry.map((v) => {
            const run = byId.get(v.id)!;
            return {
              runId: run.id,
              route: routeOf({ type: run.target_type, queue: run.target_queue }, run.tenant_id, run.priority),
              scheduledTime: run.scheduled_time,
              startAfter: v.nextAttemptAt as Date,
            };
          }),
        );
        const workers = [...new Set(expired.filter((r) => moved.has(r.id)).map((r) => r.worker_id))];
        return { reaped: moved.size, retried: retry.length, workers };
      },
      { maxTries: 1 },
    );
    if (reaped) {
      this.log.warn({ reaped, retried, workers }, 'reaped runs whose lease expired');
      this.metrics?.runsFinished.inc({ outcome: 'reaped' }, reaped);
    }
    // Passed leases of runs that are not expired (lease hints their runs outlived, leases since
    // renewed) move to the runs' leases, on their own, after the reaping has committed; a
    // failure only leaves them to be probed again.
    try {
      await refreshLeaseHints(this.pool, passedLeases);
    } catch (err) {
      this.log.warn({ err: (err as Error)?.message }, 'moving passed lease hints failed; next pass');
    }
    return reaped;
  }
}
