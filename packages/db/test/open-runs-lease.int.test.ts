// An engine's claim writes the run's lease into its open_runs row (claim-runs.ts). A herd's runs
// are materialized together, so their open_runs rows are packed onto the same pages; the claims'
// writes stay in place (HOT: no new row elsewhere, no new primary-key entry) only because the
// table keeps half of each page free (fillfactor 50, migration 20261206090000). On full pages
// every claim would write a new row version and index entry: the insert the lease replaced.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../test/db';
import { insertTenant } from '../../../test/fixtures';
import { claimRuns } from '../src/index';
import { insertPendingRunsOfOneJob } from './pending-runs';
import { updateCounts } from './update-counts';

const RUNS = 2_000;
const CLAIM = 50;

describe("a herd's claims write their leases in place", () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(() => db.destroy());

  it(`${RUNS} runs materialized in one statement, claimed ${CLAIM} at a time: nearly every lease a HOT update`, async () => {
    const tenantId = (await insertTenant(db.pool)).id;
    const { jobId, runs } = await insertPendingRunsOfOneJob(db, tenantId, RUNS);
    expect(runs).toHaveLength(RUNS);

    // One connection of its own, each claim its own transaction (as a worker's), the table's
    // counters read after this backend's statistics were flushed.
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    const counts = () => updateCounts(client, 'open_runs');
    try {
      const before = await counts();
      let claimed = 0;
      for (let i = 0; i < RUNS; i += CLAIM) {
        const batch = runs.slice(i, i + CLAIM);
        const got = await claimRuns(
          client,
          'worker-herd',
          30_000,
          batch.map((r) => r.id),
          batch.map((r) => r.scheduled_time),
        );
        claimed += got.length;
      }
      expect(claimed).toBe(RUNS);
      const after = await counts();
      const updated = after.updated - before.updated;
      const hot = after.hot - before.hot;
      expect(updated).toBe(RUNS);
      // Nearly all in place: 1,960 of 2,000 here (PostgreSQL 18.4). The few others are claims
      // whose batch filled a page within their own transaction, where the room freed by the
      // batch's earlier updates cannot be reused yet. On full pages (fillfactor 100) 750 were.
      expect(hot).toBeGreaterThanOrEqual(RUNS * 0.95);
    } finally {
      await client.end();
    }
    const { rows } = await db.pool.query<{ rows: string; leased: string }>(
      'SELECT count(*)::text AS rows, count(leased_until)::text AS leased FROM open_runs WHERE job_id = $1',
      [jobId],
    );
    expect(rows[0]).toEqual({ rows: String(RUNS), leased: String(RUNS) });
  });
});
