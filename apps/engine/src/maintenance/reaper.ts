// Returns runs whose worker died (lease expired) to the queue as a new attempt, or to the
// dead letter when their attempts are used up. Runs on every worker node; row locks with
// SKIP LOCKED keep two reapers from taking the same run.
import { enqueueRuns, pgExecutor, reapExpiredRuns, withTransaction, type QueueClient } from '@belfry/db';
import type pg from 'pg';
import type { Log } from '../logger';
import type { Metrics } from '../metrics';

export interface ReaperConfig {
  intervalMs: number;
  batchSize: number;
}

export class Reaper {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;
  private stopped = true;

  constructor(
    private readonly pool: pg.Pool,
    private readonly boss: QueueClient,
    private readonly config: ReaperConfig,
    private readonly log: Log,
    private readonly metrics?: Metrics,
  ) {}

  start(): void {
    this.stopped = false;
    const loop = () => {
      if (this.stopped) return;
      this.timer = setTimeout(() => {
        this.running = this.reapOnce()
          .catch((err) => this.log.error({ err }, 'reaper failed'))
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

  async reapOnce(): Promise<number> {
    const { reaped, retried } = await withTransaction(
      this.pool,
      async (client) => {
        const reaped = await reapExpiredRuns(client, this.config.batchSize);
        const retry = reaped.filter((r) => r.status === 'failed');
        await enqueueRuns(
          this.boss,
          pgExecutor(client),
          retry.map((r) => ({
            runId: r.id,
            tenantId: r.tenant_id,
            priority: r.priority,
            scheduledTime: r.scheduled_time,
            startAfter: new Date(),
          })),
        );
        return { reaped, retried: retry.length };
      },
      { maxTries: 1 },
    );
    if (reaped.length) {
      this.log.warn(
        { reaped: reaped.length, retried, workers: [...new Set(reaped.map((r) => r.worker_id))] },
        'reaped runs whose lease expired',
      );
      this.metrics?.runsFinished.inc({ outcome: 'reaped' }, reaped.length);
    }
    return reaped.length;
  }
}
