// A herd's runs live their whole life on the page they were inserted on. The scheduler inserts
// a herd's runs together, many tenants' runs side by side; each claim then takes one tenant's
// runs (a queue's), and the runs claimed together finish together. A run's row grows
// at its claim (worker, lease, start times) and again at the completion that ends it (the last
// attempt's outcome and request headers, migration 20261207060000): both updates stay on the
// page (HOT: no row version elsewhere, no new index entries) only because every runs partition
// keeps half of each page free (fillfactor 50, migration 20261207190000). With 70 a page's
// succeeded rows no longer fit on it, and about a fifth of the updates moved.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '@belfry/core';
import { createTestDatabase, type TestDatabase } from '../../../test/db';
import { insertJob, insertTenant } from '../../../test/fixtures';
import { type AttemptOutcome, claimRuns, completeAttempts, insertScheduledRuns } from '../src/index';
import { succeededOutcome } from './outcomes';
import { updateCounts } from './update-counts';

const TENANTS = 10;
const RUNS = 2_000;
const CLAIM = 50;
const COMPLETE = 100;

/**
 * what an engine stores of a webhook's request headers: the redacted ones sent, less those the
 * run itself says (storedHeaders, packages/handlers/src/stored-headers.ts)
 */
const requestHeaders = (scheduledTime: Date): Record<string, string> => ({
  'content-type': 'application/json',
  'user-agent': 'Belfry/0.1 (+https://github.com/belfry)',
  'webhook-timestamp': String(Math.floor(scheduledTime.getTime() / 1000)),
});

describe("a herd's claims and completions", () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(() => db.destroy());

  it(`${RUNS} runs of ${TENANTS} tenants materialized together, claimed by tenant and completed: nearly every update in place`, async () => {
    const base = Math.floor(Date.now() / 1000) * 1000 - 60_000;
    const jobs: Array<{ tenantId: string; jobId: string }> = [];
    for (let t = 0; t < TENANTS; t++) {
      const tenantId = (await insertTenant(db.pool)).id;
      const job = await insertJob(db.pool, tenantId, {
        schedule: { type: 'cron', expression: '0 0 1 1 *', timezone: 'UTC' },
        url: 'http://127.0.0.1:9/hook',
        partitions: db.partitions,
      });
      jobs.push({ tenantId, jobId: job.id });
    }
    // One statement, the tenants' runs side by side (1 ms apart: the same job's occurrences).
    const runs = await insertScheduledRuns(
      db.pool,
      Array.from({ length: RUNS }, (_, i) => {
        const { tenantId, jobId } = jobs[i % TENANTS]!;
        const scheduledTime = new Date(base + i);
        return {
          id: newId('run', scheduledTime),
          tenantId,
          jobId,
          scheduledTime,
          status: 'pending' as const,
          skipReason: null,
          priority: 'normal' as const,
        };
      }),
    );
    expect(runs).toHaveLength(RUNS);

    // One connection of its own, each claim and completion its own transaction (as a worker's),
    // the partitions' counters read after this backend's statistics were flushed.
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    const counts = () => updateCounts(client, 'runs');
    try {
      const before = await counts();
      const byTenant = new Map<string, typeof runs>();
      for (const run of runs) {
        const queue = byTenant.get(run.tenant_id);
        if (queue) queue.push(run);
        else byTenant.set(run.tenant_id, [run]);
      }
      const claimed: AttemptOutcome[] = [];
      for (const queue of byTenant.values()) {
        for (let i = 0; i < queue.length; i += CLAIM) {
          const batch = queue.slice(i, i + CLAIM);
          const got = await claimRuns(
            client,
            'worker-herd',
            30_000,
            batch.map((r) => r.id),
            batch.map((r) => r.scheduled_time),
          );
          for (const r of got) {
            claimed.push(succeededOutcome(r, { durationMs: 3, requestHeaders: requestHeaders(r.scheduled_time) }));
          }
        }
      }
      expect(claimed).toHaveLength(RUNS);
      // Runs claimed together finish together: completion batches in the order of the claims.
      let completed = 0;
      for (let i = 0; i < RUNS; i += COMPLETE) {
        await client.query('BEGIN');
        completed += (await completeAttempts(client, 'worker-herd', claimed.slice(i, i + COMPLETE))).length;
        await client.query('COMMIT');
      }
      expect(completed).toBe(RUNS);
      const after = await counts();
      const updated = after.updated - before.updated;
      const hot = after.hot - before.hot;
      expect(updated).toBe(2 * RUNS);
      // Nearly all in place: 3,810 of 4,000 here (PostgreSQL 18.4), the others rows whose page
      // another run of the same completion had just filled (the room its old version held is
      // free only once that transaction is over). With fillfactor 70, 3,208.
      expect(hot).toBeGreaterThanOrEqual(2 * RUNS * 0.9);
    } finally {
      await client.end();
    }
    const { rows } = await db.pool.query<{ n: string }>(
      `SELECT count(*)::text AS n FROM runs WHERE status = 'succeeded' AND request_headers IS NOT NULL`,
    );
    expect(rows[0]?.n).toBe(String(RUNS));
  });
});
