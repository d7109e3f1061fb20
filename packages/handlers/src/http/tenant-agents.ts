// Outbound connection pools, one per tenant. With a single pool for everyone, a tenant whose
// targets hang held every socket the pool allowed to an origin, and other tenants' deliveries
// to that same origin queued behind its stuck requests until they timed out (seen from
// outside: 0 of 340 deliveries in 40 s). Now a tenant can only exhaust its own pool.
// A tenant's pool is closed once it has been idle for a while, so thousands of tenants that
// deliver now and then do not keep thousands of pools around.
import type { Dispatcher } from 'undici';

interface Entry {
  agent: Dispatcher;
  active: number;
  lastUsed: number;
}

export interface TenantAgentsOptions {
  /** builds a tenant's pool (same settings for every tenant) */
  create(tenantId: string): Dispatcher;
  /** told when a tenant's idle pool was closed */
  onClose?(tenantId: string): void;
  /** a pool with nothing in flight for this long is closed; default 60 s */
  idleMs?: number;
}

export class TenantAgents {
  private readonly entries = new Map<string, Entry>();
  private readonly idleMs: number;
  private readonly sweeper: NodeJS.Timeout;

  constructor(private readonly options: TenantAgentsOptions) {
    this.idleMs = options.idleMs ?? 60_000;
    this.sweeper = setInterval(() => this.sweep(), Math.max(1_000, this.idleMs / 2));
    this.sweeper.unref();
  }

  /** Runs `fn` with the tenant's pool; the pool is not closed while `fn` is in progress. */
  async use<T>(tenantId: string, fn: (agent: Dispatcher) => Promise<T>): Promise<T> {
    let entry = this.entries.get(tenantId);
    if (!entry) {
      entry = { agent: this.options.create(tenantId), active: 0, lastUsed: Date.now() };
      this.entries.set(tenantId, entry);
    }
    entry.active++;
    try {
      return await fn(entry.agent);
    } finally {
      entry.active--;
      entry.lastUsed = Date.now();
    }
  }

  /** pools currently open (for tests and metrics) */
  get size(): number {
    return this.entries.size;
  }

  /** Closes the pools of tenants with nothing in flight that have been idle for `idleMs`. */
  sweep(now = Date.now()): void {
    for (const [tenantId, entry] of this.entries) {
      if (entry.active === 0 && now - entry.lastUsed >= this.idleMs) {
        this.entries.delete(tenantId);
        void entry.agent.close().catch(() => {});
        this.options.onClose?.(tenantId);
      }
    }
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    const agents = [...this.entries.values()].map((e) => e.agent);
    this.entries.clear();
    await Promise.all(agents.map((a) => a.close()));
  }
}
