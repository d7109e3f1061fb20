// Handlers: the same herd of due one-off runs through each kind of target in turn — an HTTP
// webhook, a RabbitMQ publish, a NATS JetStream publish, a pull queue drained by workers
// claiming 100 at a time over REST (and any kind added to bench/kinds) — on the same engine
// nodes and database, so the kinds' throughput and start lag can be compared: runs/s (first
// attempts over the time from due to the last arrival) and start lag p50/p99 per kind, with
// duplicates and missing occurrences. One kind at a time: run together, the fair scheduler
// would share the workers between them and measure itself.
import { randomBytes } from 'node:crypto';
import { newId } from '@belfry/core';
import { KIND_BENCHES } from '../kinds/index';
import { onInterrupt } from '../lib/cleanup';
import { herdFigures } from '../lib/figures';
import { benchDatabase, insertOneOffJobs, insertTenants, startEngines } from '../lib/harness';
import type { Summary } from '../lib/stats';

export interface HandlersOptions {
  /** due runs per kind */
  count: number;
  tenants: number;
  engines: number;
  /** which kinds (default every one in bench/kinds) */
  kinds?: string[];
}

export interface KindResult {
  kind: string;
  runs: number;
  runsPerSecond: number | null;
  deliveredAllMs: number | null;
  lag: Summary;
  duplicates: number;
  missing: number;
  /** set when the kind could not run (its broker unreachable, ...) */
  error?: string;
}

export interface HandlersResult {
  parameters: Record<string, unknown>;
  kinds: KindResult[];
}

export async function runHandlers(o: HandlersOptions): Promise<HandlersResult> {
  const benches = KIND_BENCHES.filter((k) => !o.kinds || o.kinds.includes(k.kind));
  const unknown = (o.kinds ?? []).filter((k) => !KIND_BENCHES.some((b) => b.kind === k));
  if (unknown.length) throw new Error(`--handler-kinds: unknown kind(s) ${unknown.join(', ')}`);
  const db = await benchDatabase();
  const unregister = onInterrupt(() => db.drop());
  const engines = await startEngines(db.url, o.engines, {
    BELFRY_TENANT_CONCURRENCY: '100',
    BELFRY_WORKER_CONCURRENCY: '400',
  });
  const results: KindResult[] = [];
  try {
    for (const bench of benches) {
      const runTag = randomBytes(5).toString('hex');
      const tenants = Array.from({ length: o.tenants }, () => newId('ten'));
      await insertTenants(db.pool, tenants, 100);
      let receiver: Awaited<ReturnType<typeof bench.start>>;
      try {
        receiver = await bench.start({ databaseUrl: db.url, tenants, runTag });
      } catch (err) {
        results.push({ ...empty(bench.kind), error: (err as Error).message });
        continue;
      }
      try {
        const parking = new Date('2100-01-01T00:00:00Z');
        await insertOneOffJobs(db.pool, {
          count: o.count,
          tenants,
          runAt: parking,
          url: '',
          target: receiver.target,
          prefix: `${bench.kind}-`,
          partitions: 1024,
        });
        if (receiver.timeoutSeconds !== undefined) {
          await db.pool.query('UPDATE jobs SET timeout_seconds = $1 WHERE tenant_id = ANY($2)', [
            receiver.timeoutSeconds,
            tenants,
          ]);
        }
        await db.pool.query('VACUUM ANALYZE jobs');
        const due = new Date(Math.ceil((Date.now() + 6_000) / 1000) * 1000);
        await db.pool.query('UPDATE jobs SET run_at = $1, next_run_at = $1 WHERE tenant_id = ANY($2)', [due, tenants]);
        const deadline = due.getTime() + 300_000;
        while (Date.now() < deadline && receiver.records.length < o.count && !receiver.failure?.()) {
          await new Promise((r) => setTimeout(r, 100));
        }
        const failure = receiver.failure?.();
        if (failure) {
          results.push({ ...empty(bench.kind), error: String((failure as Error).message ?? failure) });
          continue;
        }
        await new Promise((r) => setTimeout(r, 1_000)); // late duplicates, if any, would arrive now
        const f = herdFigures(receiver.records, { due: due.getTime(), expected: o.count });
        results.push({
          kind: bench.kind,
          runs: o.count,
          runsPerSecond: f.deliveriesPerSecond,
          deliveredAllMs: f.deliveredAllMs,
          lag: f.lag,
          duplicates: f.duplicates,
          missing: f.missing,
        });
      } finally {
        await receiver.stop();
      }
    }
  } finally {
    await engines.stop();
    await db.drop();
    unregister();
  }
  return { parameters: { runsPerKind: o.count, tenants: o.tenants, engines: o.engines }, kinds: results };
}

function empty(kind: string): KindResult {
  return {
    kind,
    runs: 0,
    runsPerSecond: null,
    deliveredAllMs: null,
    lag: { count: 0, p50: null, p95: null, p99: null, max: null, mean: null },
    duplicates: 0,
    missing: 0,
  };
}
