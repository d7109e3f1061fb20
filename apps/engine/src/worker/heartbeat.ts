// Keeps the leases of this node's attempts alive: every `intervalMs` one statement extends all
// of them. An attempt whose lease could not be extended (cancelled, or reaped after this node
// stalled) is reported lost, so it is aborted rather than finishing unfenced work.
import { extendRunLeases } from '@belfry/db';
import type pg from 'pg';
import type { Log } from '../logger';
import type { Execution } from './execute';

export interface HeartbeatConfig {
  workerId: string;
  runLeaseMs: number;
  intervalMs: number;
}

export class LeaseHeartbeat {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly pool: pg.Pool,
    private readonly config: HeartbeatConfig,
    /** the attempts in flight */
    private readonly executions: () => Iterable<Execution>,
    private readonly onLost: (runId: string) => void,
    private readonly log: Log,
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.beat(), this.config.intervalMs);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  async beat(): Promise<void> {
    // Attempts whose outcome is being recorded are left alone: the completion transaction holds
    // their rows, and touching them here too would only risk a deadlock.
    const runs = [...this.executions()].filter((e) => !e.reason && !e.finished).map((e) => e.run);
    if (!runs.length) return;
    try {
      const kept = await extendRunLeases(
        this.pool,
        this.config.workerId,
        this.config.runLeaseMs,
        runs.map((r) => ({ id: r.id, scheduledTime: r.scheduled_time, attempt: r.attempt })),
      );
      for (const r of runs) if (!kept.has(r.id)) this.onLost(r.id);
    } catch (err) {
      this.log.warn({ err }, 'lease heartbeat failed');
    }
  }
}
