// Prometheus metrics of one engine node, served on GET /metrics, plus a rolling window of
// start lags whose percentiles go into the node's heartbeat for the dashboard.
import { createServer, type Server } from 'node:http';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { LagWindow, type LagSummary } from './lag-window';

export interface NotificationCount {
  channel_type: string;
  status: string;
  n: number;
}

export class Metrics {
  readonly registry = new Registry();
  readonly startLag = new Histogram({
    name: 'belfry_start_lag_seconds',
    help: 'Delay between a run becoming due (scheduled time or retry time) and its attempt starting',
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60],
    registers: [this.registry],
  });
  readonly runsFinished = new Counter({
    name: 'belfry_runs_total',
    help: 'Attempts and runs by outcome (succeeded, retry, dead, skipped, cancelled, stale)',
    labelNames: ['outcome'],
    registers: [this.registry],
  });
  readonly materialized = new Counter({
    name: 'belfry_runs_materialized_total',
    help: 'Scheduled runs created by this node',
    registers: [this.registry],
  });
  readonly partitionsOwned = new Gauge({
    name: 'belfry_partitions_owned',
    help: 'Scheduler partitions held by this node',
    registers: [this.registry],
  });
  readonly leaseTakeovers = new Counter({
    name: 'belfry_lease_takeovers_total',
    help: 'Partitions taken over from another (dead or stopped) node',
    registers: [this.registry],
  });
  readonly queueDepth = new Gauge({
    name: 'belfry_queue_depth',
    help: 'Runs queued for engine workers by priority (ready and deferred), cluster-wide, read at scrape time',
    labelNames: ['priority'],
    registers: [this.registry],
    collect: async () => {
      const depth = await this.depthSource?.().catch(() => null);
      for (const [priority, n] of Object.entries(depth ?? {})) this.queueDepth.set({ priority }, n);
    },
  });
  private depthSource: (() => Promise<Record<string, number>>) | undefined;
  readonly inFlight = new Gauge({
    name: 'belfry_runs_in_flight',
    help: 'Runs executing on this node',
    registers: [this.registry],
  });

  readonly tenantStartLag = new Histogram({
    name: 'belfry_tenant_start_lag_seconds',
    help: 'Start lag per tenant (as belfry_start_lag_seconds)',
    labelNames: ['tenant'],
    buckets: [0.01, 0.05, 0.25, 1, 5, 30, 120],
    registers: [this.registry],
  });
  // Cluster-wide, from the outbox rows' recorded outcomes: the web process's dispatcher serves
  // no /metrics, so counting in-process would miss what it sent. Read at scrape time, cached.
  readonly alertNotifications = new Counter({
    name: 'belfry_alert_notifications_total',
    help: 'Alert notifications by channel type and result (sent, retry, failed), cluster-wide, from the outbox',
    labelNames: ['channel_type', 'status'],
    registers: [this.registry],
    collect: async () => {
      const counts = await this.notificationCounts().catch(() => null);
      if (!counts) return;
      this.alertNotifications.reset();
      for (const c of counts) this.alertNotifications.inc({ channel_type: c.channel_type, status: c.status }, c.n);
    },
  });
  private notificationSource: (() => Promise<NotificationCount[]>) | undefined;
  private notificationCache: { at: number; counts: Promise<NotificationCount[]> } | undefined;
  private notificationCacheMs = 5_000;
  readonly openIncidents = new Gauge({
    name: 'belfry_open_incidents',
    help: 'Open incidents by kind, cluster-wide, read at scrape time',
    labelNames: ['kind'],
    registers: [this.registry],
    collect: async () => {
      const open = await this.incidentSource?.().catch(() => null);
      for (const [kind, n] of Object.entries(open ?? {})) this.openIncidents.set({ kind }, n);
    },
  });
  private incidentSource: (() => Promise<Record<string, number>>) | undefined;

  private readonly lags = new LagWindow();

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'belfry_process_' });
  }

  /** Where belfry_queue_depth comes from (a query); without one the gauge stays empty. */
  setQueueDepthSource(source: () => Promise<Record<string, number>>): void {
    this.depthSource = source;
  }

  /** Where belfry_alert_notifications_total comes from (a query); answers are reused for `cacheMs`. */
  setNotificationSource(source: () => Promise<NotificationCount[]>, cacheMs = 5_000): void {
    this.notificationSource = source;
    this.notificationCacheMs = cacheMs;
    this.notificationCache = undefined;
  }

  private notificationCounts(): Promise<NotificationCount[] | null> {
    const source = this.notificationSource;
    if (!source) return Promise.resolve(null);
    const now = Date.now();
    if (!this.notificationCache || now - this.notificationCache.at >= this.notificationCacheMs) {
      const counts = source();
      // A failed read is not cached: the next scrape asks again.
      counts.catch(() => {
        if (this.notificationCache?.counts === counts) this.notificationCache = undefined;
      });
      this.notificationCache = { at: now, counts };
    }
    return this.notificationCache.counts;
  }

  /** Where belfry_open_incidents comes from (a query). */
  setIncidentSource(source: () => Promise<Record<string, number>>): void {
    this.incidentSource = source;
  }

  recordLag(ms: number, tenantId?: string): void {
    this.startLag.observe(Math.max(0, ms) / 1000);
    if (tenantId) this.tenantStartLag.observe({ tenant: tenantId }, Math.max(0, ms) / 1000);
    this.lags.record(ms);
  }

  /** Start-lag percentiles over the last `windowMs`, for the dashboard's cluster view. */
  lagSummary(windowMs = 5 * 60_000): LagSummary {
    return this.lags.summary(Date.now() - windowMs);
  }

  /** Serves /metrics; port 0 picks a free port. Falls back to a free port if `port` is taken. */
  async serve(port: number): Promise<{ server: Server; port: number }> {
    const server = createServer((req, res) => {
      if (req.url !== '/metrics') {
        res.writeHead(404).end();
        return;
      }
      this.registry
        .metrics()
        .then((body) => res.writeHead(200, { 'content-type': this.registry.contentType }).end(body))
        .catch((err: Error) => res.writeHead(500).end(err.message));
    });
    const listen = (p: number) =>
      new Promise<number>((resolve, reject) => {
        server.once('error', reject);
        server.listen(p, '127.0.0.1', () => {
          server.off('error', reject);
          const addr = server.address();
          resolve(typeof addr === 'object' && addr ? addr.port : p);
        });
      });
    let bound: number;
    try {
      bound = await listen(port);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE' || port === 0) throw err;
      bound = await listen(0);
    }
    return { server, port: bound };
  }
}
