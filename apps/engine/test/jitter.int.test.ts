// Herd spreading: a job with jitterSeconds starts each occurrence at its scheduled time plus a
// fixed offset derived from (job id, scheduled time). The run records that due time (due_at),
// the target still sees the nominal occurrence (belfry-scheduled-time), nothing starts before
// its due time, and each occurrence still has exactly one scheduled run.
import { dueTime, jitterOffsetMs } from '@belfry/core';
import { describe, expect, it } from 'vitest';
import { insertJob, insertTenant, waitForRows } from '../../../test/fixtures';
import { engineWithSink } from './support';

describe('engine: jitter', () => {
  const engine = engineWithSink('jitter-1');

  it('starts each run at its due time, with the nominal scheduled time in the headers', async () => {
    const tenant = await insertTenant(engine.db.pool);
    const runAt = new Date(Math.ceil((Date.now() + 1500) / 1000) * 1000);
    const jobs = [];
    for (let i = 0; i < 12; i++) {
      jobs.push(
        await insertJob(engine.db.pool, tenant.id, {
          schedule: { type: 'once', runAt },
          url: engine.sink.url,
          jitterSeconds: 3,
          partitions: engine.db.partitions,
        }),
      );
    }
    const ids = new Set(jobs.map((j) => j.id));
    const got = await engine.sink.waitFor(
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
      engine.db.pool,
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
    const attempts = await engine.db.pool.query<{ job_id: string; started_at: Date }>(
      'SELECT job_id, started_at FROM run_attempt_history WHERE job_id = ANY($1::text[])',
      [[...ids]],
    );
    expect(attempts.rows).toHaveLength(12);
    for (const a of attempts.rows) {
      expect(a.started_at.getTime()).toBeGreaterThanOrEqual(dueTime(a.job_id, runAt, 3).getTime());
    }
  });

  it('keeps one scheduled run per occurrence of a jittered interval job', async () => {
    const tenant = await insertTenant(engine.db.pool);
    const job = await insertJob(engine.db.pool, tenant.id, {
      schedule: { type: 'interval', everySeconds: 1, anchor: new Date(Math.floor(Date.now() / 1000) * 1000) },
      url: engine.sink.url,
      jitterSeconds: 2,
      partitions: engine.db.partitions,
    });
    const runs = await waitForRows<{ scheduled_time: Date; due_at: Date; status: string }>(
      engine.db.pool,
      `SELECT scheduled_time, due_at, status FROM runs WHERE job_id = $1 AND trigger = 'schedule' ORDER BY scheduled_time`,
      [job.id],
      (r) => r.filter((x) => x.status === 'succeeded').length >= 4,
      30_000,
    );
    await engine.db.pool.query('UPDATE jobs SET next_run_at = NULL WHERE id = $1', [job.id]);
    expect(new Set(runs.map((r) => r.scheduled_time.getTime())).size).toBe(runs.length);
    for (const r of runs) expect(r.due_at).toEqual(dueTime(job.id, r.scheduled_time, 2));
    const deliveries = engine.sink.deliveries.filter((d) => d.headers['belfry-job-id'] === job.id);
    const nominal = deliveries.map((d) => String(d.headers['belfry-scheduled-time']));
    expect(new Set(nominal).size).toBe(nominal.length);
  });
});
