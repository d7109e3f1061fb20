// Failover: three engine nodes share `perSecond` occurrences per second; one is killed with
// SIGKILL mid-run. Reports what happened to the occurrences around the kill: missing,
// duplicated, the worst start lag, and how long until its partitions were taken over.
import { newId, partitionOf } from '@belfry/core';
import { benchDatabase, insertTenants, startEngines, startSink } from '../lib/harness';
import { summarize, type Summary } from '../lib/stats';

export interface FailoverResult {
  parameters: Record<string, unknown>;
  expected: number;
  delivered: number;
  missing: number;
  duplicates: number;
  lagBefore: Summary;
  lagAfterKill: Summary;
  takeoverMs: number | null;
  reapedRuns: number;
}

export async function runFailover(o: {
  perSecond: number;
  seconds: number;
  killAfterSeconds: number;
}): Promise<FailoverResult> {
  const db = await benchDatabase();
  const sink = await startSink();
  const engines = await startEngines(db.url, 3, { BELFRY_LEASE_SECONDS: '15', BELFRY_RUN_LEASE_SECONDS: '30' });
  try {
    const tenant = newId('ten');
    await insertTenants(db.pool, [tenant], 200);
    const start = Math.ceil((Date.now() + 4_000) / 1000) * 1000;
    const ids = Array.from({ length: o.perSecond }, () => newId('job'));
    await db.pool.query(
      `INSERT INTO jobs (id, tenant_id, name, schedule_type, every_seconds, anchor_at, target, timeout_seconds, partition,
                         next_run_at)
       SELECT id, $2, 'failover-' || id, 'interval', 1, $3, $4::jsonb, 10, partition, $6
       FROM unnest($1::text[], $5::int[]) AS t(id, partition)`,
      [
        ids,
        tenant,
        new Date(start - 1000),
        JSON.stringify({ type: 'http', url: sink.url, method: 'POST', headers: {} }),
        ids.map((id) => partitionOf(id, 1024)),
        new Date(start),
      ],
    );
    const killAt = start + o.killAfterSeconds * 1000;
    while (Date.now() < killAt) await new Promise((r) => setTimeout(r, 100));
    const victim = engines.children[2];
    const { rows: held } = await db.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM partition_leases WHERE owner = 'bench-3'`,
    );
    victim?.kill('SIGKILL');
    const killedAt = Date.now();
    let takeoverMs: number | null = null;
    const end = start + o.seconds * 1000;
    while (Date.now() < end + 5_000) {
      if (takeoverMs === null) {
        const { rows } = await db.pool.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM partition_leases WHERE owner = 'bench-3'`,
        );
        if ((rows[0]?.n ?? 0) === 0) takeoverMs = Date.now() - killedAt;
      }
      await new Promise((r) => setTimeout(r, 200));
    }
    const window = sink.records.filter((r) => r.scheduled >= start && r.scheduled < end);
    const firstByOccurrence = new Map<string, { at: number; scheduled: number; runIds: Set<string> }>();
    for (const r of window) {
      const key = `${r.jobId}@${r.scheduled}`;
      const e = firstByOccurrence.get(key);
      if (e) {
        e.runIds.add(r.runId);
        e.at = Math.min(e.at, r.at);
      } else firstByOccurrence.set(key, { at: r.at, scheduled: r.scheduled, runIds: new Set([r.runId]) });
    }
    const occurrences = [...firstByOccurrence.values()];
    const reaped = await db.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM run_attempt_history WHERE error LIKE 'lease expired%'`,
    );
    return {
      parameters: {
        nodes: 3,
        perSecond: o.perSecond,
        seconds: o.seconds,
        killAfterSeconds: o.killAfterSeconds,
        victimPartitions: held[0]?.n ?? 0,
      },
      expected: o.perSecond * o.seconds,
      delivered: occurrences.length,
      missing: o.perSecond * o.seconds - occurrences.length,
      duplicates: occurrences.filter((e) => e.runIds.size > 1).length,
      lagBefore: summarize(occurrences.filter((e) => e.scheduled < killedAt).map((e) => e.at - e.scheduled)),
      lagAfterKill: summarize(occurrences.filter((e) => e.scheduled >= killedAt).map((e) => e.at - e.scheduled)),
      takeoverMs,
      reapedRuns: reaped.rows[0]?.n ?? 0,
    };
  } finally {
    await engines.stop();
    await sink.stop();
    await db.drop();
  }
}
