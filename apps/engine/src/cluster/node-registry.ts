// Registers this engine node in engine_nodes and heartbeats it, with a small stats document
// the dashboard's cluster view reads (partitions owned, in-flight runs, start lag).
import type pg from 'pg';
import { hostname } from 'node:os';
import { FailureStreak } from '@belfry/log';
import type { Log } from '../logger';
import type { Role } from '../env';

export interface NodeRegistryConfig {
  nodeId: string;
  roles: Role[];
  heartbeatMs?: number;
  version?: string;
}

export class NodeRegistry {
  private timer: NodeJS.Timeout | undefined;
  private statsSource: () => Record<string, unknown> = () => ({});
  private readonly heartbeatMs: number;
  private readonly failures: FailureStreak;

  constructor(
    private readonly pool: pg.Pool,
    private readonly config: NodeRegistryConfig,
    private readonly log: Log,
  ) {
    this.heartbeatMs = config.heartbeatMs ?? 2_000;
    this.failures = new FailureStreak(log, 'heartbeat', 'warn');
  }

  setStatsSource(fn: () => Record<string, unknown>): void {
    this.statsSource = fn;
  }

  async start(): Promise<void> {
    await this.pool.query(
      `INSERT INTO engine_nodes (id, roles, hostname, pid, version, started_at, heartbeat_at, stopped_at)
       VALUES ($1, $2, $3, $4, $5, now(), now(), NULL)
       ON CONFLICT (id) DO UPDATE SET roles = EXCLUDED.roles, hostname = EXCLUDED.hostname, pid = EXCLUDED.pid,
         version = EXCLUDED.version, started_at = now(), heartbeat_at = now(), stopped_at = NULL`,
      [this.config.nodeId, this.config.roles, hostname(), process.pid, this.config.version ?? null],
    );
    this.timer = setInterval(() => void this.beat(), this.heartbeatMs);
    this.timer.unref();
  }

  async beat(): Promise<void> {
    try {
      await this.pool.query('UPDATE engine_nodes SET heartbeat_at = now(), stats = $2 WHERE id = $1', [
        this.config.nodeId,
        JSON.stringify(this.statsSource()),
      ]);
      this.failures.succeeded();
    } catch (err) {
      this.failures.failed(err);
    }
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.pool
      .query('UPDATE engine_nodes SET stopped_at = now(), heartbeat_at = now() WHERE id = $1', [this.config.nodeId])
      .catch((err) => this.log.warn({ err }, 'could not mark node stopped'));
  }
}
