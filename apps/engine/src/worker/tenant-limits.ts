// Per-tenant concurrency: a tenant's max_concurrency is shared by the live worker nodes, so
// each node allows ceil(limit / live workers) of that tenant's runs at once.
import type pg from 'pg';

export class TenantLimits {
  private limits = new Map<string, number>();
  private liveWorkers = 1;
  private loadedAt = 0;
  private triedAt = 0;
  private loading: Promise<void> | undefined;

  constructor(
    private readonly pool: pg.Pool,
    private readonly defaultLimit: number,
    private readonly refreshMs = 10_000,
  ) {}

  /** How many of this tenant's runs this node may execute at once. */
  perNode(tenantId: string): number {
    // Refreshed in the background; while the database is away the last limits stand, and a
    // failed refresh is tried again after a second rather than on every call.
    const now = Date.now();
    if (now - this.loadedAt > this.refreshMs && now - this.triedAt > 1_000) {
      this.triedAt = now;
      this.refresh().catch(() => {});
    }
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
