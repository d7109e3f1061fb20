// Pull-queue workers for the bench, as a tenant's own would run them: each claims over the REST
// API (POST /queues/{queue}/claim, `batch` at a time, long-polling) and completes every run it
// got (POST /runs/{id}/complete). Used by the `pull` scenario and the `handlers` scenario's pull
// kind. A request that got no answer is sent again (the lease token keeps that safe).
import type pg from 'pg';
import { type Dispatcher, Pool } from 'undici';

/** keep-alive connections per worker: its runs' completions share them */
const CONNECTIONS_PER_WORKER = 32;

export interface ClaimedRun {
  run: { id: string; jobId: string; scheduledTime: string; attempt: number };
  leaseToken: string;
}

export interface PullWorkerStats {
  claimRequests: number;
  completeRequests: number;
  completed: number;
  /** completions refused because the lease had expired (those runs are claimed again) */
  lostLeases: number;
  /** requests sent again after getting no answer */
  networkRetries: number;
  lastCompletedAt: number;
}

export interface PullWorkers {
  stats: PullWorkerStats;
  /** the first error a worker met (it stops all of them), if any */
  failure(): unknown;
  stop(): Promise<void>;
}

export interface PullWorkersOptions {
  restUrl: string;
  queue: string;
  /** one API key (scope queues:consume) per tenant */
  keys: string[];
  workersPerTenant: number;
  /** runs per claim (1..100) */
  batch: number;
  /** called when a claim answered with `claimed` at `at` (ms epoch), before its completion */
  onClaimed?(claimed: ClaimedRun, at: number): void;
  /** called when the completion of a run claimed at `claimedAt` was accepted */
  onCompleted?(claimed: ClaimedRun, claimedAt: number): void;
}

/** API keys with only the queues:consume scope, one per tenant, straight into the table. */
export async function insertConsumerKeys(pool: pg.Pool, tenants: string[]): Promise<string[]> {
  const { newId } = await import('@belfry/core');
  const { generateApiKey } = await import('@belfry/api');
  const keys: string[] = [];
  for (const tenantId of tenants) {
    const key = generateApiKey();
    await pool.query(
      `INSERT INTO api_keys (id, tenant_id, name, prefix, key_hash, scopes) VALUES ($1, $2, 'bench', $3, $4, $5)`,
      [newId('key'), tenantId, key.prefix, key.hash, ['queues:consume']],
    );
    keys.push(key.key);
  }
  // The workers' requests are the load being measured, not abuse to be limited.
  await pool.query(
    'UPDATE tenants SET rate_limit_per_second = 1000000, rate_limit_burst = 1000000 WHERE id = ANY($1)',
    [tenants],
  );
  return keys;
}

export function startPullWorkers(o: PullWorkersOptions): PullWorkers {
  const stop = new AbortController();
  const stats: PullWorkerStats = {
    claimRequests: 0,
    completeRequests: 0,
    completed: 0,
    lostLeases: 0,
    networkRetries: 0,
    lastCompletedAt: 0,
  };
  let failure: unknown;
  // Each worker is a client of its own with a few keep-alive connections, as a tenant's worker
  // on another machine would be; the runs of a claim queue for them. (fetch opened a socket per
  // concurrent request — hundreds — and cost this process, which shares the cores with the API
  // and the database, about twice the CPU per request.)
  const post = async (http: Pool, key: string, path: string, body: unknown) => {
    let res: Dispatcher.ResponseData;
    for (let attempt = 1; ; attempt++) {
      // A signal per request, detached from `stop` when it ends (a listener on a shared signal
      // would stay behind for every request).
      const request = new AbortController();
      const abort = () => request.abort();
      stop.signal.addEventListener('abort', abort, { once: true });
      try {
        res = await http.request({
          method: 'POST',
          path,
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
          signal: request.signal,
        });
        break;
      } catch (err) {
        if (stop.signal.aborted || attempt >= 3) throw new Error(`${path}: ${String((err as Error).cause ?? err)}`);
        stats.networkRetries++;
      } finally {
        stop.signal.removeEventListener('abort', abort);
      }
    }
    const json = (await res.body.json()) as Record<string, unknown>;
    if (res.statusCode >= 300) throw new Error(`${path}: ${res.statusCode} ${JSON.stringify(json)}`);
    return json;
  };
  const clients: Pool[] = [];
  const worker = async (key: string, name: string) => {
    const http = new Pool(o.restUrl, { connections: CONNECTIONS_PER_WORKER });
    clients.push(http);
    while (!stop.signal.aborted) {
      stats.claimRequests++;
      const { data } = (await post(http, key, `/api/v1/queues/${o.queue}/claim`, {
        max: o.batch,
        waitSeconds: 5,
        leaseSeconds: 60,
        worker: name,
      })) as { data: ClaimedRun[] };
      const at = Date.now();
      await Promise.all(
        data.map(async (claimed) => {
          o.onClaimed?.(claimed, at);
          stats.completeRequests++;
          try {
            await post(http, key, `/api/v1/runs/${claimed.run.id}/complete`, {
              leaseToken: claimed.leaseToken,
              status: 'succeeded',
            });
            stats.completed++;
            stats.lastCompletedAt = Date.now();
            o.onCompleted?.(claimed, at);
          } catch (err) {
            // A lease that ran out before its completion: the run is retried and claimed again.
            if (!String(err).includes(': 409 ')) throw err;
            stats.lostLeases++;
          }
        }),
      );
    }
  };
  const running = o.keys.flatMap((key, i) =>
    Array.from({ length: o.workersPerTenant }, (_, w) =>
      worker(key, `bench-${i}-${w}`).catch((err: unknown) => {
        if (!stop.signal.aborted) {
          failure ??= err;
          stop.abort();
        }
      }),
    ),
  );
  return {
    stats,
    failure: () => failure,
    async stop() {
      stop.abort();
      await Promise.allSettled(running);
      await Promise.allSettled(clients.map((c) => c.destroy()));
    },
  };
}
