// Herd: N one-off jobs across tenants, all due in the same second. Measures when all runs are
// materialized (run row + queue message, one transaction), when all are delivered, the start
// lag distribution, and checks there are no duplicate and no missing occurrences.
import { dueTime, newId } from '@belfry/core';
import { benchDatabase, insertOneOffJobs, insertTenants, startEngines, startSink } from '../lib/harness';
import { herdFigures } from '../lib/figures';
import { type HerdCpu, herdMeters } from '../lib/herd-cpu';
import { summarize, type Summary } from '../lib/stats';

export interface HerdOptions {
  count: number;
  tenants: number;
  /** tenants[0] gets this many jobs; the others share the rest (fairness scenario) */
  skew?: { big: number; small: number };
  /**
   * tenants[0]'s target never answers (its runs hang until they time out); the scenario ends
   * when every other tenant's runs are delivered, and judges only theirs for missing ones
   */
  hangBig?: boolean;
  engines: number;
  label: string;
  /** every job gets this jitterSeconds; start lag is then measured from each run's dueAt */
  jitterSeconds?: number;
  /**
   * seconds between moving the herd to its due time and that due time. At least the scheduler's
   * lookahead (10.5 s) is a herd as it comes in production — jobs that exist long before their
   * common due time, materialized from lookahead before it — and as the peers get it (their jobs
   * are all enqueued before the due time). Less leaves part of the materializing after the due
   * time, competing with the deliveries.
   */
  leadSeconds: number;
  /**
   * each engine node's BELFRY_WORKER_CONCURRENCY (default 400, the herd's; the engine's own
   * default is 1000): targets called at once. Runs claimed ahead (up to 500 ms) wait beside
   * them, as many again.
   */
  workerConcurrency?: number;
}

export interface HerdResult {
  parameters: Record<string, unknown>;
  /** runs materialized (and enqueued) when the herd became due */
  materializedAtDue: number | null;
  materializedAllMs: number | null;
  deliveredAllMs: number | null;
  deliveriesPerSecond: number | null;
  lag: Summary;
  lagByTenant: Record<string, Summary>;
  duplicates: number;
  missing: number;
  deliveries: number;
  points: { t: number; lag: number }[];
  lags: number[];
  /** CPU from /proc while the herd was materialized and delivered (see HerdCpu) */
  cpu: HerdCpu | null;
  /**
   * the part of it from the due time to the last delivery: the deliveries (claims, requests,
   * completions), the herd being materialized before its due time — the window of the peers'
   * herd CPU, whose jobs are all enqueued before it too
   */
  cpuFromDue: HerdCpu | null;
  /** runs + run_attempts (every partition, tables, indexes, TOAST) on disk after the herd, per run */
  historyBytesPerRun: number | null;
  /** the same per table: heap, indexes, other (TOAST, free-space and visibility maps) */
  historyPerRun: Record<string, { heap: number; indexes: number; other: number }>;
}

export async function runHerd(o: HerdOptions): Promise<HerdResult> {
  const db = await benchDatabase();
  const sink = await startSink();
  const workerConcurrency = o.workerConcurrency ?? 400;
  const engines = await startEngines(db.url, o.engines, {
    BELFRY_TENANT_CONCURRENCY: '100',
    BELFRY_WORKER_CONCURRENCY: String(workerConcurrency),
  });
  try {
    const tenants = Array.from({ length: o.tenants }, () => newId('ten'));
    await insertTenants(db.pool, tenants, 100);
    const parking = new Date('2100-01-01T00:00:00Z');
    const jobsPerTenant = new Map<string, number>();
    if (o.skew) {
      const [big, ...small] = tenants as [string, ...string[]];
      await insertOneOffJobs(db.pool, {
        count: o.skew.big,
        tenants: [big],
        runAt: parking,
        url: o.hangBig ? `${sink.url}/hang` : sink.url,
        prefix: 'herd-',
        partitions: 1024,
      });
      jobsPerTenant.set(big, o.skew.big);
      await insertOneOffJobs(db.pool, {
        count: o.skew.small * small.length,
        tenants: small,
        runAt: parking,
        url: sink.url,
        prefix: 'herd-',
        partitions: 1024,
      });
      for (const t of small) jobsPerTenant.set(t, o.skew.small);
    } else {
      await insertOneOffJobs(db.pool, {
        count: o.count,
        tenants,
        runAt: parking,
        url: sink.url,
        prefix: 'herd-',
        partitions: 1024,
      });
    }
    const total = o.skew ? o.skew.big + o.skew.small * (o.tenants - 1) : o.count;
    // With a hanging tenant, only the others' runs can all arrive.
    const hung = new Set<string>();
    if (o.hangBig) {
      const { rows } = await db.pool.query<{ id: string }>('SELECT id FROM jobs WHERE tenant_id = $1', [tenants[0]]);
      for (const r of rows) hung.add(r.id);
    }
    const expected = total - hung.size;
    const arrived = () => (hung.size ? sink.records.filter((r) => !hung.has(r.jobId)).length : sink.records.length);
    await db.pool.query('VACUUM ANALYZE jobs');
    const meters = herdMeters(
      db.pool,
      engines.children.map((c) => c.pid).filter((p): p is number => p !== undefined),
      sink.pid,
    );
    const idleCores = await meters.idle(2_000);

    // Everything becomes due in the same second, leadSeconds from now.
    const due = new Date(Math.ceil((Date.now() + o.leadSeconds * 1000) / 1000) * 1000);
    await db.pool.query('UPDATE jobs SET run_at = $1, next_run_at = $1, jitter_seconds = $2', [
      due,
      o.jitterSeconds ?? 0,
    ]);
    // From here the engines see the herd (they claim and materialize ahead of its due time).
    const whole = meters.window();
    await whole.start();
    let cpu: HerdCpu | null = null;
    // the deliveries' window opens when the herd falls due, with materializedAtDue
    const fromDue = meters.window();
    let cpuFromDue: HerdCpu | null = null;

    let materializedAt: number | null = null;
    let materializedAtDue: number | null = null;
    const deadline = due.getTime() + 300_000;
    while (Date.now() < deadline) {
      if (materializedAtDue === null && Date.now() >= due.getTime()) {
        await fromDue.start();
        const { rows } = await db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM runs');
        materializedAtDue = rows[0]?.n ?? 0;
      }
      if (materializedAt === null) {
        // Every job is a one-off: its next_run_at is cleared in the transaction that
        // materializes its run, so none left (an empty jobs_due_idx) means all are materialized.
        // (Counting runs instead cost the database ~25 ms every 100 ms during a 100K herd.)
        const { rows } = await db.pool.query<{ left: boolean }>(
          'SELECT EXISTS (SELECT 1 FROM jobs WHERE next_run_at IS NOT NULL) AS left',
        );
        if (rows[0]?.left === false) materializedAt = Date.now();
      }
      // The last delivery has arrived: the CPU window ends.
      if (cpu === null && arrived() >= expected) {
        cpu = await whole.read(expected, idleCores);
        if (materializedAtDue !== null) cpuFromDue = await fromDue.read(expected, idleCores);
      }
      if (arrived() >= expected && materializedAt !== null) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    await new Promise((r) => setTimeout(r, 1_000)); // late duplicates, if any, would arrive now

    // With jitter, each run is due at its scheduled time plus its offset (the run's dueAt, as
    // the engine computes it): lag counts from there.
    const jitter = o.jitterSeconds ?? 0;
    const records = jitter
      ? sink.records.map((r) => ({ ...r, scheduled: dueTime(r.jobId, new Date(r.scheduled), jitter).getTime() }))
      : sink.records;
    const figures = herdFigures(records, {
      due: due.getTime(),
      expected,
      judged: (r) => !hung.has(r.jobId),
    });
    const { first } = figures;

    // Every partition of each history table: heap, indexes, and the rest (TOAST, maps).
    const { rows: history } = await db.pool.query<{ tbl: string; heap: string; indexes: string; total: string }>(
      `SELECT t.tbl, sum(pg_relation_size(p.relid))::text AS heap, sum(pg_indexes_size(p.relid))::text AS indexes,
              sum(pg_total_relation_size(p.relid))::text AS total
       FROM unnest(ARRAY['runs', 'run_attempts']) AS t(tbl), pg_partition_tree(t.tbl::regclass) AS p
       WHERE p.isleaf GROUP BY t.tbl`,
    );
    const perRun = (v: string | undefined) => (total > 0 ? Math.round(Number(v ?? 0) / total) : 0);
    const historyPerRun = Object.fromEntries(
      history.map((h) => [
        h.tbl,
        {
          heap: perRun(h.heap),
          indexes: perRun(h.indexes),
          other: perRun(h.total) - perRun(h.heap) - perRun(h.indexes),
        },
      ]),
    );
    const historyBytes = history.reduce((sum, h) => sum + Number(h.total), 0);
    const historyBytesPerRun = total > 0 ? Math.round(historyBytes / total) : null;

    const jobTenant = new Map<string, string>();
    const { rows: jt } = await db.pool.query<{ id: string; tenant_id: string }>('SELECT id, tenant_id FROM jobs');
    for (const r of jt) jobTenant.set(r.id, r.tenant_id);
    const lagByTenant: Record<string, Summary> = {};
    const perTenant = new Map<string, number[]>();
    for (const r of first) {
      const t = jobTenant.get(r.jobId) ?? '?';
      const list = perTenant.get(t) ?? [];
      list.push(r.at - r.scheduled);
      perTenant.set(t, list);
    }
    for (const [t, list] of perTenant) lagByTenant[t] = summarize(list);

    return {
      parameters: {
        jobs: total,
        tenants: o.tenants,
        engines: o.engines,
        skew: o.skew ?? null,
        hangBig: o.hangBig ?? false,
        bigTenant: o.skew ? tenants[0] : null,
        dueAt: due.toISOString(),
        leadSeconds: o.leadSeconds,
        workerConcurrency,
        jitterSeconds: jitter,
        lagFrom: jitter ? "each run's dueAt" : 'the scheduled time',
      },
      materializedAtDue,
      materializedAllMs: materializedAt === null ? null : materializedAt - due.getTime(),
      deliveredAllMs: figures.deliveredAllMs,
      deliveriesPerSecond: figures.deliveriesPerSecond,
      lag: figures.lag,
      lagByTenant,
      duplicates: figures.duplicates,
      missing: figures.missing,
      deliveries: figures.deliveries,
      points: figures.points,
      lags: figures.lags,
      cpu,
      cpuFromDue,
      historyBytesPerRun,
      historyPerRun,
    };
  } finally {
    await engines.stop();
    await sink.stop();
    await db.drop();
  }
}
