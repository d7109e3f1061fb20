// Per-tenant concurrency: a tenant's max_concurrency is shared by the live worker nodes, so
// each node allows ceil(limit / live workers) of that tenant's runs at once.
import type pg from 'pg';

export class TenantLimits {
  private limits = new Map<string, number>();
  private liveWorkers = 1;
  private loadedAt = 0;
  private loading: Promise<void> | undefined;

  constructor(
    private readonly pool: pg.Pool,
    private readonly defaultLimit: number,
    private readonly refreshMs = 10_000,
  ) {}

  /** How many of this tenant's runs this node may execute at once. */
  perNode(tenantId: string): number {
    if (Date.now() - this.loadedAt > this.refreshMs) void this.refresh();
    const limit = this.limits.get(tenantId) ?? this.defaultLimit;
    return Math.max(1, Math.ceil(limit / this.liveWorkers));
  }

  refresh(): Promise<void> {
    this.loading ??= (async () => {
      try {
        const [tenants, nodes] = await Promise.all([
          this.pool.query<{ id: string; max_concurrency: number }>('SELECT id, max_concurrency FROM tenants'),
          this.pool.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM engine_nodes
             WHERE 'worker' = ANY(roles) AND stopped_at IS NULL AND heartbeat_at > now() - interval '15 seconds'`,
          ),
        ]);
        this.limits = new Map(tenants.rows.map((t) => [t.id, t.max_concurrency]));
        this.liveWorkers = Math.max(1, nodes.rows[0]?.n ?? 1);
        this.loadedAt = Date.now();
      } finally {
        this.loading = undefined;
      }
    })();
    return this.loading;
  }
}
