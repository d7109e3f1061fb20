// Pull: N one-off jobs with `pull` targets across tenants, all due in the same second; each
// tenant's workers claim through the REST API (POST /queues/{queue}/claim, 100 at a time,
// long-polling) and complete every run (POST /runs/{id}/complete). Measures completed runs
// per second from the due time, the start lag (claim answered − scheduled time), and checks
// that every run was claimed exactly once and none is missing.
import { newId } from '@belfry/core';
import { cpuMeter, processCpuMs } from '../lib/proc';
import { benchDatabase, insertOneOffJobs, insertTenants, startEngines, startRestServer } from '../lib/harness';
import { insertConsumerKeys, type PullWorkers, startPullWorkers } from '../lib/pull-workers';
import { summarize, type Summary } from '../lib/stats';

export interface PullOptions {
  count: number;
  tenants: number;
  /** claiming workers per tenant */
  workersPerTenant: number;
  /** runs per claim */
  batch: number;
}

export interface PullResult {
  parameters: Record<string, unknown>;
  completed: number;
  completedAllMs: number | null;
  runsPerSecond: number | null;
  lag: Summary;
  duplicates: number;
  missing: number;
  claimRequests: number;
  completeRequests: number;
  /** completions refused because the lease had expired (those runs were claimed again) */
  lostLeases: number;
  /** requests sent again after getting no answer */
  networkRetries: number;
  /**
   * CPU time per 1,000 completed runs, from the due time to the last completion (/proc): the API
   * process, the bench's database backends (claims, completions and the engine node's), and this
   * process (the workers' HTTP clients). Far less sensitive to a busy machine than runs/s.
   */
  cpuMsPer1000: { api: number | null; database: number; workers: number } | null;
}

const QUEUE = 'bench';

export async function runPull(o: PullOptions): Promise<PullResult> {
  const db = await benchDatabase();
  // One engine node: it materializes the herd's runs into the pull queues (and would reap
  // leases that expire); its workers never fetch pull queues.
  const engines = await startEngines(db.url, 1);
  const rest = await startRestServer(db.url);
  let stopWorkers: PullWorkers | undefined;
  try {
    const tenants = Array.from({ length: o.tenants }, () => newId('ten'));
    await insertTenants(db.pool, tenants, 100);
    const keys = await insertConsumerKeys(db.pool, tenants);
    await insertOneOffJobs(db.pool, {
      count: o.count,
      tenants,
      runAt: new Date('2100-01-01T00:00:00Z'),
      url: '',
      prefix: 'pull-',
      partitions: 1024,
      target: { type: 'pull', queue: QUEUE },
    });
    // A lease lasts at most the job's timeoutSeconds: room for a slow machine to complete a batch.
    await db.pool.query('UPDATE jobs SET timeout_seconds = 300');
    await db.pool.query('VACUUM ANALYZE jobs');

    const claims = new Map<string, number>(); // run id → times claimed
    const lags: number[] = [];
    const workers = startPullWorkers({
      restUrl: rest.url,
      queue: QUEUE,
      keys,
      workersPerTenant: o.workersPerTenant,
      batch: o.batch,
      onClaimed: ({ run }, at) => {
        claims.set(run.id, (claims.get(run.id) ?? 0) + 1);
        lags.push(at - Date.parse(run.scheduledTime));
      },
    });
    stopWorkers = workers;
    const { stats } = workers;

    // Everything becomes due in the same second, a few seconds from now.
    const due = new Date(Math.ceil((Date.now() + 5_000) / 1000) * 1000);
    await db.pool.query('UPDATE jobs SET run_at = $1, next_run_at = $1', [due]);
    const backends = async () =>
      (
        await db.pool.query<{ pid: number }>(
          'SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
        )
      ).rows.map((r) => r.pid);
    await new Promise((r) => setTimeout(r, Math.max(0, due.getTime() - Date.now())));
    const dbCpu = cpuMeter();
    dbCpu.start(await backends());
    const apiCpu0 = processCpuMs(rest.pid);
    const ownCpu0 = process.cpuUsage();
    const deadline = due.getTime() + 300_000;
    while (stats.completed < o.count && Date.now() < deadline && !workers.failure())
      await new Promise((r) => setTimeout(r, 100));
    const apiCpu1 = processCpuMs(rest.pid);
    const ownCpu = process.cpuUsage(ownCpu0);
    const dbCpuMs = dbCpu.elapsed(await backends());
    const per1000 = (ms: number) => Math.round((ms / Math.max(1, stats.completed)) * 1000);
    const cpuMsPer1000 = stats.completed
      ? {
          api: apiCpu0 !== null && apiCpu1 !== null ? per1000(apiCpu1 - apiCpu0) : null,
          database: per1000(dbCpuMs),
          workers: per1000((ownCpu.user + ownCpu.system) / 1000),
        }
      : null;
    await new Promise((r) => setTimeout(r, 1_000)); // a run handed out twice would be claimed now
    await workers.stop();
    if (workers.failure()) throw workers.failure();

    const { rows } = await db.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM runs WHERE status = 'succeeded'`,
    );
    const completedAllMs = stats.completed >= o.count ? stats.lastCompletedAt - due.getTime() : null;
    return {
      parameters: { jobs: o.count, tenants: o.tenants, workersPerTenant: o.workersPerTenant, batch: o.batch },
      completed: rows[0]?.n ?? 0,
      completedAllMs,
      runsPerSecond: completedAllMs ? Math.round((o.count / completedAllMs) * 1000) : null,
      lag: summarize(lags),
      // A run claimed again after its lease ran out is a retry, not a duplicate.
      duplicates: Math.max(0, [...claims.values()].filter((n) => n > 1).length - stats.lostLeases),
      missing: o.count - claims.size,
      claimRequests: stats.claimRequests,
      completeRequests: stats.completeRequests,
      lostLeases: stats.lostLeases,
      networkRetries: stats.networkRetries,
      cpuMsPer1000,
    };
  } finally {
    await stopWorkers?.stop();
    await rest.stop();
    await engines.stop();
    await db.drop();
  }
}
