// Pull: N one-off jobs with `pull` targets across tenants, all due in the same second; each
// tenant's workers claim through the REST API (POST /queues/{queue}/claim, 100 at a time,
// long-polling) and complete every run (POST /runs/{id}/complete). Measures completed runs
// per second from the due time, the start lag (claim answered − scheduled time), and checks
// that every run was claimed exactly once and none is missing.
import { newId } from '@belfry/core';
import { generateApiKey } from '@belfry/api';
import { benchDatabase, insertOneOffJobs, insertTenants, startEngines, startRestServer } from '../lib/harness';
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
}

const QUEUE = 'bench';

export async function runPull(o: PullOptions): Promise<PullResult> {
  const db = await benchDatabase();
  // One engine node: it materializes the herd's runs into the pull queues (and would reap
  // leases that expire); its workers never fetch pull queues.
  const engines = await startEngines(db.url, 1);
  const rest = await startRestServer(db.url);
  const stopWorkers = new AbortController();
  try {
    const tenants = Array.from({ length: o.tenants }, () => newId('ten'));
    await insertTenants(db.pool, tenants, 100);
    await db.pool.query('UPDATE tenants SET rate_limit_per_second = 1000000, rate_limit_burst = 1000000');
    const keys = new Map<string, string>();
    for (const tenantId of tenants) {
      const key = generateApiKey();
      await db.pool.query(
        `INSERT INTO api_keys (id, tenant_id, name, prefix, key_hash, scopes) VALUES ($1, $2, 'bench', $3, $4, $5)`,
        [newId('key'), tenantId, key.prefix, key.hash, ['queues:consume']],
      );
      keys.set(tenantId, key.key);
    }
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
    let completed = 0;
    let lastCompletedAt = 0;
    let claimRequests = 0;
    let completeRequests = 0;
    let lostLeases = 0;
    let networkRetries = 0;
    let failure: unknown;
    const post = async (key: string, path: string, body: unknown) => {
      let res: Response;
      for (let attempt = 1; ; attempt++) {
        try {
          res = await fetch(`${rest.url}${path}`, {
            method: 'POST',
            headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
            body: JSON.stringify(body),
            signal: stopWorkers.signal,
          });
          break;
        } catch (err) {
          // A worker retries a request that got no answer (the lease token keeps it safe).
          if (stopWorkers.signal.aborted || attempt >= 3)
            throw new Error(`${path}: ${String((err as Error).cause ?? err)}`);
          networkRetries++;
        }
      }
      const json = (await res.json()) as Record<string, unknown>;
      if (!res.ok) throw new Error(`${path}: ${res.status} ${JSON.stringify(json)}`);
      return json;
    };
    const worker = async (key: string, name: string) => {
      while (!stopWorkers.signal.aborted) {
        claimRequests++;
        const { data } = (await post(key, `/api/v1/queues/${QUEUE}/claim`, {
          max: o.batch,
          waitSeconds: 5,
          leaseSeconds: 60,
          worker: name,
        })) as { data: { run: { id: string; scheduledTime: string }; leaseToken: string }[] };
        const at = Date.now();
        await Promise.all(
          data.map(async ({ run, leaseToken }) => {
            claims.set(run.id, (claims.get(run.id) ?? 0) + 1);
            lags.push(at - Date.parse(run.scheduledTime));
            completeRequests++;
            try {
              await post(key, `/api/v1/runs/${run.id}/complete`, { leaseToken, status: 'succeeded' });
              completed++;
              lastCompletedAt = Date.now();
            } catch (err) {
              // A lease that ran out before its completion: the run is retried and claimed again.
              if (!String(err).includes(': 409 ')) throw err;
              lostLeases++;
            }
          }),
        );
      }
    };
    const running = tenants.flatMap((t, i) =>
      Array.from({ length: o.workersPerTenant }, (_, w) =>
        worker(keys.get(t) as string, `bench-${i}-${w}`).catch((err: unknown) => {
          if (!stopWorkers.signal.aborted) {
            failure ??= err;
            stopWorkers.abort();
          }
        }),
      ),
    );

    // Everything becomes due in the same second, a few seconds from now.
    const due = new Date(Math.ceil((Date.now() + 5_000) / 1000) * 1000);
    await db.pool.query('UPDATE jobs SET run_at = $1', [due]);
    await db.pool.query('UPDATE schedule_entries SET next_run_at = $1', [due]);
    const deadline = due.getTime() + 300_000;
    while (completed < o.count && Date.now() < deadline && !stopWorkers.signal.aborted)
      await new Promise((r) => setTimeout(r, 100));
    await new Promise((r) => setTimeout(r, 1_000)); // a run handed out twice would be claimed now
    stopWorkers.abort();
    await Promise.allSettled(running);
    if (failure) throw failure;

    const { rows } = await db.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM runs WHERE status = 'succeeded'`,
    );
    const completedAllMs = completed >= o.count ? lastCompletedAt - due.getTime() : null;
    return {
      parameters: { jobs: o.count, tenants: o.tenants, workersPerTenant: o.workersPerTenant, batch: o.batch },
      completed: rows[0]?.n ?? 0,
      completedAllMs,
      runsPerSecond: completedAllMs ? Math.round((o.count / completedAllMs) * 1000) : null,
      lag: summarize(lags),
      // A run claimed again after its lease ran out is a retry, not a duplicate.
      duplicates: Math.max(0, [...claims.values()].filter((n) => n > 1).length - lostLeases),
      missing: o.count - claims.size,
      claimRequests,
      completeRequests,
      lostLeases,
      networkRetries,
    };
  } finally {
    stopWorkers.abort();
    await rest.stop();
    await engines.stop();
    await db.drop();
  }
}
