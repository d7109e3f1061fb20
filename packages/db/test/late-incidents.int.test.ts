// The late watchdog's gate (src/sql/late-incidents.ts): with no late threshold set anywhere the
// scans are skipped, and a threshold set on a job alone, or on its tenant's policy, is still
// found and judged as before.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '@belfry/core';
import { createTestDatabase, type TestDatabase } from '../../../test/db';
import { insertJob, insertTenant, LIST_OPEN_RUNS } from '../../../test/fixtures';
import { advanceSchedule, openLateIncidents, resolveLateIncidents } from '../src/index';

describe('late watchdog scans', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(() => db.destroy());

  /** A job of a new tenant whose one-off run has waited, pending, for ten minutes. */
  async function waitingRun() {
    const tenantId = (await insertTenant(db.pool)).id;
    const at = new Date(Date.now() - 600_000);
    const job = await insertJob(db.pool, tenantId, {
      schedule: { type: 'once', runAt: at },
      url: 'http://127.0.0.1:9/hook',
      partitions: db.partitions,
    });
    await db.pool.query('UPDATE jobs SET next_run_at = NULL WHERE id = $1', [job.id]);
    await db.pool.query(
      `WITH r AS (
         INSERT INTO runs (id, tenant_id, job_id, scheduled_time, status, trigger) VALUES ($1, $2, $3, $4, 'pending', 'schedule')
         RETURNING id, job_id, scheduled_time, finished_at
       ${LIST_OPEN_RUNS}`,
      [newId('run', at), tenantId, job.id, at],
    );
    return { tenantId, jobId: job.id };
  }

  const openLate = async (jobId: string) =>
    (
      await db.pool.query(`SELECT 1 FROM incidents WHERE job_id = $1 AND kind = 'late' AND resolved_at IS NULL`, [
        jobId,
      ])
    ).rowCount;

  it('finds nothing to do, and opens nothing, where no threshold is set', async () => {
    const { jobId } = await waitingRun();
    expect(await openLateIncidents(db.pool)).toBe(0);
    expect(await resolveLateIncidents(db.pool)).toBe(0);
    expect(await openLate(jobId)).toBe(0);
  });

  it("opens on a job's own threshold, then resolves once it is removed", async () => {
    const { jobId } = await waitingRun();
    await db.pool.query(`UPDATE jobs SET alerts = '{"lateAfterSeconds": 60}' WHERE id = $1`, [jobId]);
    expect(await openLateIncidents(db.pool)).toBe(1);
    expect(await openLate(jobId)).toBe(1);
    await db.pool.query(`UPDATE jobs SET alerts = NULL WHERE id = $1`, [jobId]);
    expect(await openLateIncidents(db.pool)).toBe(0);
    expect(await resolveLateIncidents(db.pool)).toBe(1);
    expect(await openLate(jobId)).toBe(0);
  });

  it('opens for a one-off the scheduler stored completed while its run still waits, not for a manual run', async () => {
    const { jobId } = await waitingRun();
    // The scheduler's materializing update stores a one-off completed (shown active while its run is open).
    await advanceSchedule(db.pool, [], [jobId]);
    expect((await db.pool.query('SELECT status FROM jobs WHERE id = $1', [jobId])).rows[0]?.status).toBe('completed');
    await db.pool.query(`UPDATE jobs SET alerts = '{"lateAfterSeconds": 60}' WHERE id = $1`, [jobId]);
    expect(await openLateIncidents(db.pool)).toBe(1);
    expect(await openLate(jobId)).toBe(1);

    // A completed job's manual run waiting as long is outside its schedule: no incident.
    const { jobId: other } = await waitingRun();
    await db.pool.query(`UPDATE runs SET trigger = 'manual' WHERE job_id = $1`, [other]);
    await db.pool.query(`UPDATE jobs SET status = 'completed', alerts = '{"lateAfterSeconds": 60}' WHERE id = $1`, [
      other,
    ]);
    expect(await openLateIncidents(db.pool)).toBe(0);
    expect(await openLate(other)).toBe(0);
  });

  it("opens on the tenant policy's threshold, not for a job that turned it off", async () => {
    const { tenantId, jobId } = await waitingRun();
    const off = await insertJob(db.pool, tenantId, {
      schedule: { type: 'once', runAt: new Date(Date.now() - 600_000) },
      url: 'http://127.0.0.1:9/hook',
      partitions: db.partitions,
    });
    await db.pool.query(`UPDATE jobs SET alerts = '{"lateAfterSeconds": null}' WHERE id = $1`, [off.id]);
    await db.pool.query(`INSERT INTO alert_policies (tenant_id, late_after_seconds) VALUES ($1, 60)`, [tenantId]);
    expect(await openLateIncidents(db.pool)).toBe(1);
    expect(await openLate(jobId)).toBe(1);
    expect(await openLate(off.id)).toBe(0);
  });
});
