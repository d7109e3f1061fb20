// Scale: load many jobs straight into the tables (as a bulk tool would), most of them due far
// in the future and a slice due now, then time the scheduler's due scan (the same SQL the
// engine runs: selectDueEntries over half the partitions, batch 1000) and measure bytes per
// job on disk.
//
// Every size is loaded first, each into a database of its own on the same server, and the scans
// are then timed in the same minutes: back to back (each size's scans in a row) and in turns
// (one scan of each size, again and again). Until 2026-12-03 each size was timed right after
// its own load, minutes apart, and a scan of a few milliseconds moved with whatever else the
// machine was doing (single scans of 18-21 ms at both sizes; the 10M/1M ratio 0.87-1.86
// across runs).
import { newId } from '@belfry/core';
import { selectDueEntries } from '@belfry/db';
import type { PoolClient } from 'pg';
import { withoutTargetDefaults } from '@belfry/handlers/schemas';
import { benchDatabase, type BenchDb } from '../lib/harness';
import { summarize, type Summary } from '../lib/stats';

export interface ScaleResult {
  jobs: number;
  loadSeconds: number;
  /** the due scan timed in turns with the other sizes (one scan of each size, again and again) */
  scan: Summary;
  /** the same scan timed back to back (all of this size's scans in a row), in the same run */
  scanBackToBack: Summary;
  /** the row counts the measured scans returned, each distinct one once (~half the due jobs at both sizes) */
  scanRows: number[];
  bytesPerJob: number;
  bytes: Record<string, number>;
  /** bytes per job in each table and index (TOAST and free-space maps aside) */
  perRelation: Record<string, number>;
}

interface Loaded {
  db: BenchDb;
  jobs: number;
  loadSeconds: number;
}

/** Loads `jobs` jobs into a database of their own, `due` of them due now. */
async function load(o: { jobs: number; due: number }): Promise<Loaded> {
  const db = await benchDatabase();
  try {
    // A tenant id as the API makes them (ten_ + 26 characters): every jobs row holds it.
    const tenantId = newId('ten');
    await db.pool.query(`INSERT INTO tenants (id, name, slug) VALUES ($1, 'scale', 'scale')`, [tenantId]);
    // Stored as the API stores it: without the fields at their default (method, headers).
    const target = JSON.stringify(
      withoutTargetDefaults({ type: 'http', url: 'http://127.0.0.1:9/hook', method: 'POST', headers: {} }),
    );
    const t0 = Date.now();
    const chunk = 500_000;
    for (let from = 1; from <= o.jobs; from += chunk) {
      const to = Math.min(o.jobs, from + chunk - 1);
      // Ids shaped like real ones (job_ + 26 chars) and ordered like them: a real id starts with
      // its creation time (a ULID, core newId), so jobs_pkey grows at its right edge as jobs are
      // created; here 10 hex digits of g, then 16 of md5(g). (Random ids split pages all over
      // the index: 65 bytes per job instead of ~50.) Partition from a hash, as partitionOf does;
      // runs_per_minute as the API computes it for an hourly cron (1/60). Each job its own
      // creation time, 1 ms apart in id order: jobs created one by one. (Jobs sharing one
      // created_at, as a batch's do, share a key of jobs_tenant_status_idx, which PostgreSQL
      // then stores deduplicated: 7 bytes per job instead of ~31, not a figure to plan with.)
      // Jobs not due now are a day or more ahead: loading 10M takes minutes, and with the first
      // of them 60 s ahead (until 2026-12-03) ~700 more came due during the load, so the large
      // scan returned 692 rows against the small one's 486 (one run: 1,725 due against 984).
      await db.pool.query(
        `INSERT INTO jobs (id, tenant_id, name, schedule_type, cron_expression, timezone, anchor_at, target, payload,
                           partition, runs_per_minute, next_run_at, created_at, updated_at)
         SELECT 'job_' || lpad(upper(to_hex(g)), 10, '0') || upper(substr(md5(g::text), 1, 16)), $5, 'job-' || g, 'cron',
                '0 * * * *', 'UTC', NULL, $3::jsonb, NULL, abs(hashtext(g::text)) % 1024, 1.0 / 60,
                CASE WHEN random() < $4::float8 THEN now() - interval '1 second'
                     ELSE now() + make_interval(secs => 86400 + random() * 30 * 86400) END,
                $6::timestamptz + make_interval(secs => g / 1000.0), $6::timestamptz + make_interval(secs => g / 1000.0)
         FROM generate_series($1::int, $2::int) AS g`,
        [from, to, target, o.due / o.jobs, tenantId, new Date(t0 - o.jobs)],
      );
    }
    const loadSeconds = (Date.now() - t0) / 1000;
    await db.pool.query('VACUUM ANALYZE jobs');
    return { db, jobs: o.jobs, loadSeconds };
  } catch (err) {
    await db.drop().catch(() => {});
    throw err;
  }
}

/** Scan times to the hundredth of a millisecond, summarized. */
const summarizeMs = (ms: number[]): Summary => summarize(ms.map((m) => Math.round(m * 100) / 100));

/** One scan as the engine runs it (in a transaction, rolled back: the rows stay due); its time and rows. */
async function timeScan(client: PoolClient, partitions: number[]): Promise<{ ms: number; rows: number }> {
  await client.query('BEGIN');
  try {
    const t = performance.now();
    const scan = await selectDueEntries(client, partitions, 2_000, 1_000);
    const ms = performance.now() - t;
    if (!scan.entries.length) throw new Error('the due scan found nothing due');
    return { ms, rows: scan.entries.length };
  } finally {
    await client.query('ROLLBACK');
  }
}

async function storage(loaded: Loaded): Promise<Pick<ScaleResult, 'bytesPerJob' | 'bytes' | 'perRelation'>> {
  const { db, jobs } = loaded;
  const { rows } = await db.pool.query<{ jobs: string }>(`SELECT pg_total_relation_size('jobs')::text AS jobs`);
  // jobs holds the schedule too (next_run_at, jobs_due_idx) since migration 20261202030000.
  const bytes = { jobs: Number(rows[0]?.jobs) };
  // Where the bytes are: the table and each of its indexes, per job.
  const { rows: parts } = await db.pool.query<{ name: string; bytes: string }>(
    `SELECT c.relname AS name, pg_relation_size(c.oid)::text AS bytes FROM pg_class c
     WHERE c.oid = 'jobs'::regclass OR c.oid IN (SELECT indexrelid FROM pg_index WHERE indrelid = 'jobs'::regclass)
     ORDER BY pg_relation_size(c.oid) DESC`,
  );
  const perRelation = Object.fromEntries(parts.map((p) => [p.name, Math.round(Number(p.bytes) / jobs)]));
  return { bytesPerJob: Math.round(bytes.jobs / jobs), bytes, perRelation };
}

/**
 * Loads each size of `jobs` (smallest first) and times `iterations` due scans of each, back to
 * back and in turns. The results are in the order of `jobs`.
 */
export async function runScale(o: {
  jobs: number[];
  due: number;
  iterations: number;
  log?: (line: string) => void;
}): Promise<ScaleResult[]> {
  const loaded: Loaded[] = [];
  const clients: PoolClient[] = [];
  try {
    for (const jobs of o.jobs) {
      o.log?.(`scale: loading ${jobs} jobs`);
      loaded.push(await load({ jobs, due: o.due }));
    }
    // The loads wrote gigabytes of WAL: end that checkpoint cycle now, so the scans below do not
    // pay for the bulk load (the first change to a page after a checkpoint logs the whole page,
    // and the scan's row locks change pages). One server: one checkpoint covers every size.
    await loaded[0]?.db.pool.query('CHECKPOINT');
    for (const l of loaded) clients.push(await l.db.pool.connect());

    const partitions = Array.from({ length: 512 }, (_, i) => i);
    // Back to back first (each size's scans in a row, as the scenario timed them until
    // 2026-12-03), then in turns: both ways in one run, on the same databases.
    o.log?.(`scale: ${o.iterations} due scans of each size back to back, then ${o.iterations} in turns`);
    const backToBack: number[][] = [];
    for (const client of clients) {
      const ms: number[] = [];
      for (let i = 0; i < o.iterations + 3; i++) {
        const scan = await timeScan(client, partitions);
        if (i >= 3) ms.push(scan.ms); // the first scans warm the cache
      }
      backToBack.push(ms);
    }
    const samples: number[][] = loaded.map(() => []);
    const scanRows: Set<number>[] = loaded.map(() => new Set());
    for (let i = 0; i < o.iterations + 3; i++) {
      for (const [k, client] of clients.entries()) {
        const scan = await timeScan(client, partitions);
        if (i < 3) continue; // the first scans warm the cache
        samples[k]?.push(scan.ms);
        scanRows[k]?.add(scan.rows);
      }
    }
    const results: ScaleResult[] = [];
    for (const [k, l] of loaded.entries()) {
      results.push({
        jobs: l.jobs,
        loadSeconds: l.loadSeconds,
        scan: summarizeMs(samples[k] ?? []),
        scanBackToBack: summarizeMs(backToBack[k] ?? []),
        scanRows: [...(scanRows[k] ?? [])],
        ...(await storage(l)),
      });
    }
    return results;
  } finally {
    for (const c of clients) c.release();
    for (const l of loaded) await l.db.drop().catch(() => {});
  }
}
