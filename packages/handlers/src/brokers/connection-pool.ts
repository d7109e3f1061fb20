// Broker connections, pooled per (tenant, broker URL). A connection is opened on a tenant's
// first publish to a broker and kept for the next ones (opening an AMQP or NATS connection
// costs several round trips and a login); it is closed after a while without publishes, and
// dropped as soon as the broker closes it, so the next publish reconnects. Each tenant may
// hold at most `perTenant` connections: a job list naming hundreds of brokers evicts its own
// idle connections first, and past that its publishes fail (and are retried) instead of
// opening sockets without bound. A broker that is down or slow only ever delays the publishes
// that wait for it — every wait is bounded by the caller's signal — never another tenant's,
// which use connections of their own.

/** What a kind's handler tells the pool about its connections. */
export interface ConnectionFactory<C> {
  /** opens a connection (its own connect timeout applies); `onClosed` when it ends by itself */
  open(url: string, onClosed: () => void): Promise<C>;
  close(connection: C): Promise<void>;
}

export interface ConnectionPoolOptions {
  /** a connection with no publish in flight for this long is closed; default 60 s */
  idleMs?: number;
  /** connections a tenant may hold at once; default 16 */
  perTenant?: number;
}

/** The tenant already holds its maximum of connections, all of them in use. Retryable. */
export class TooManyConnectionsError extends Error {
  constructor(limit: number) {
    super(`this workspace already has ${limit} broker connections in use; try again later`);
    this.name = 'TooManyConnectionsError';
  }
}

interface Entry<C> {
  tenantId: string;
  key: string;
  opening: Promise<C>;
  connection: C | null;
  active: number;
  lastUsed: number;
}

/** Rejects with the signal's reason when it aborts before `promise` settles. */
export function raceSignal<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (err) => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
}

export class ConnectionPool<C> {
  private readonly entries = new Map<string, Entry<C>>();
  private readonly idleMs: number;
  private readonly perTenant: number;
  private readonly sweeper: NodeJS.Timeout;
  private closed = false;

  constructor(
    private readonly factory: ConnectionFactory<C>,
    options: ConnectionPoolOptions = {},
  ) {
    this.idleMs = options.idleMs ?? 60_000;
    this.perTenant = options.perTenant ?? 16;
    this.sweeper = setInterval(() => this.sweep(), Math.max(1_000, this.idleMs / 2));
    this.sweeper.unref();
  }

  /**
   * Runs `fn` with the tenant's connection to `url`, opening it if needed. The connection is
   * not closed by the pool while `fn` runs. Waiting for it to open ends when `signal` aborts.
   */
  async use<T>(tenantId: string, url: string, signal: AbortSignal, fn: (connection: C) => Promise<T>): Promise<T> {
    if (this.closed) throw new Error('the broker connection pool is closed');
    const entry = this.entryFor(tenantId, url);
    entry.active++;
    try {
      const connection = await raceSignal(entry.opening, signal);
      return await fn(connection);
    } finally {
      entry.active--;
      entry.lastUsed = Date.now();
    }
  }

  /** Connections open or opening (for tests and metrics). */
  size(tenantId?: string): number {
    if (tenantId === undefined) return this.entries.size;
    return [...this.entries.values()].filter((e) => e.tenantId === tenantId).length;
  }

  /** Drops a connection that is no longer usable (the handler saw it fail); the next use reconnects. */
  discard(tenantId: string, url: string, connection: C): void {
    const key = keyOf(tenantId, url);
    const entry = this.entries.get(key);
    if (entry?.connection === connection) this.remove(entry);
  }

  private entryFor(tenantId: string, url: string): Entry<C> {
    const key = keyOf(tenantId, url);
    const existing = this.entries.get(key);
    if (existing) return existing;
    this.makeRoom(tenantId);
    const entry: Entry<C> = {
      tenantId,
      key,
      opening: undefined as never,
      connection: null,
      active: 0,
      lastUsed: Date.now(),
    };
    entry.opening = this.factory
      .open(url, () => {
        if (this.entries.get(key) === entry) this.entries.delete(key);
      })
      .then(
        (connection) => {
          entry.connection = connection;
          // Closed (pool or sweep) while it was opening: it is nobody's now.
          if (this.entries.get(key) !== entry) void this.factory.close(connection).catch(() => {});
          return connection;
        },
        (err) => {
          // A failed open is not kept: the next publish tries again.
          if (this.entries.get(key) === entry) this.entries.delete(key);
          throw err;
        },
      );
    // Callers may all have given up (their signals) before the open settles.
    entry.opening.catch(() => {});
    this.entries.set(key, entry);
    return entry;
  }

  /** At the tenant's cap: closes its least recently used idle connection, or refuses. */
  private makeRoom(tenantId: string): void {
    const mine = [...this.entries.values()].filter((e) => e.tenantId === tenantId);
    if (mine.length < this.perTenant) return;
    const idle = mine.filter((e) => e.active === 0 && e.connection !== null).sort((a, b) => a.lastUsed - b.lastUsed);
    const victim = idle[0];
    if (!victim) throw new TooManyConnectionsError(this.perTenant);
    this.remove(victim);
  }

  private remove(entry: Entry<C>): void {
    this.entries.delete(entry.key);
    if (entry.connection !== null) void this.factory.close(entry.connection).catch(() => {});
  }

  /** Closes connections with nothing in flight that have been idle for `idleMs`. */
  sweep(now = Date.now()): void {
    for (const entry of [...this.entries.values()]) {
      if (entry.active === 0 && entry.connection !== null && now - entry.lastUsed >= this.idleMs) this.remove(entry);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.sweeper);
    const entries = [...this.entries.values()];
    this.entries.clear();
    await Promise.allSettled(
      entries.map(async (e) => {
        // One still opening is closed by its own continuation once it opens (it is no longer pooled).
        if (e.connection === null) await e.opening.catch(() => null);
        else await this.factory.close(e.connection);
      }),
    );
  }
}

function keyOf(tenantId: string, url: string): string {
  return `${tenantId}\u0000${url}`;
}
