// Herd spreading: a job with jitterSeconds starts each occurrence at its scheduled time plus a
// fixed offset derived from (job id, scheduled time). The run records that due time (due_at),
// the target still sees the nominal occurrence (belfry-scheduled-time), nothing starts before
// its due time, and each occurrence still has exactly one scheduled run.
import { dueTime, jitterOffsetMs } from '@belfry/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../test/db';
import { startEngineNode, type EngineNode } from '../../../test/engine-nodes';
import {
  insertJob,
  insertTenant,
  startSink,
  TEST_ENCRYPTION_KEY_MATERIAL,
  type Sink,
  waitForRows,
} from '../../../test/fixtures';

describe('engine: jitter', () => {
  let db: TestDatabase;
  let node: EngineNode;
  let sink: Sink;

  beforeAll(async () => {
    db = await createTestDatabase();
    sink = await startSink();
    node = await startEngineNode({
      databaseUrl: db.url,
      nodeId: 'jitter-1',
      env: { BELFRY_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY_MATERIAL },
    });
  });
  afterAll(async () => {
    await node?.stop();
    await sink?.close();
    await db?.destroy();
  });

  it('starts each run at its due time, with the nominal scheduled time in the headers', async () => {
    const tenant = await insertTenant(db.pool);
    const runAt = new Date(Math.ceil((Date.now() + 1500) / 1000) * 1000);
    const jobs = [];
    for (let i = 0; i < 12; i++) {
      jobs.push(
        await insertJob(db.pool, tenant.id, {
          schedule: { type: 'once', runAt },
          url: sink.url,
          jitterSeconds: 3,
          partitions: db.partitions,
        }),
      );
    }
    const ids = new Set(jobs.map((j) => j.id));
    const got = await sink.waitFor(
      (all) => all.filter((d) => ids.has(String(d.headers['belfry-job-id']))).length >= 12,
      30_000,
    );
    const mine = got.filter((d) => ids.has(String(d.headers['belfry-job-id'])));
    expect(mine).toHaveLength(12);
    const offsets = new Set<number>();
    for (const d of mine) {
      const jobId = String(d.headers['belfry-job-id']);
      const due = dueTime(jobId, runAt, 3);
      offsets.add(jitterOffsetMs(jobId, runAt, 3));
      expect(d.headers['belfry-scheduled-time']).toBe(runAt.toISOString());
      expect(d.at).toBeGreaterThanOrEqual(due.getTime());
    }
    // Twelve jobs of one herd do not all start at one instant.
    expect(offsets.size).toBeGreaterThan(1);
    const runs = await waitForRows<{ job_id: string; scheduled_time: Date; due_at: Date; started_at: Date }>(
      db.pool,
      `SELECT job_id, scheduled_time, due_at, started_at FROM runs
        WHERE job_id = ANY($1::text[]) AND status = 'succeeded'`,
      [[...ids]],
      (r) => r.length === 12,
    );
    for (const r of runs) {
      expect(r.scheduled_time).toEqual(runAt);
      expect(r.due_at).toEqual(dueTime(r.job_id, runAt, 3));
      expect(r.started_at.getTime()).toBeGreaterThanOrEqual(r.due_at.getTime());
    }
    const attempts = await db.pool.query<{ job_id: string; started_at: Date }>(
      'SELECT job_id, started_at FROM run_attempts WHERE job_id = ANY($1::text[])',
      [[...ids]],
    );
    expect(attempts.rows).toHaveLength(12);
    for (const a of attempts.rows) {
      expect(a.started_at.getTime()).toBeGreaterThanOrEqual(dueTime(a.job_id, runAt, 3).getTime());
    }
  });

  it('keeps one scheduled run per occurrence of a jittered interval job', async () => {
    const tenant = await insertTenant(db.pool);
    const job = await insertJob(db.pool, tenant.id, {
      schedule: { type: 'interval', everySeconds: 1, anchor: new Date(Math.floor(Date.now() / 1000) * 1000) },
      url: sink.url,
      jitterSeconds: 2,
      partitions: db.partitions,
    });
    const runs = await waitForRows<{ scheduled_time: Date; due_at: Date; status: string }>(
      db.pool,
      `SELECT scheduled_time, due_at, status FROM runs WHERE job_id = $1 AND trigger = 'schedule' ORDER BY scheduled_time`,
      [job.id],
      (r) => r.filter((x) => x.status === 'succeeded').length >= 4,
      30_000,
    );
    await db.pool.query('DELETE FROM schedule_entries WHERE job_id = $1', [job.id]);
    expect(new Set(runs.map((r) => r.scheduled_time.getTime())).size).toBe(runs.length);
    for (const r of runs) expect(r.due_at).toEqual(dueTime(job.id, r.scheduled_time, 2));
    const deliveries = sink.deliveries.filter((d) => d.headers['belfry-job-id'] === job.id);
    const nominal = deliveries.map((d) => String(d.headers['belfry-scheduled-time']));
    expect(new Set(nominal).size).toBe(nominal.length);
  });
});
