import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { CANCEL_CHANNEL, jobStatusSql } from '@belfry/db';
import { insertJob, insertTenant, waitForRows } from '../../../test/fixtures';
import { dbNow, engineWithSink } from './support';

describe('engine: schedule to signed delivery', () => {
  const engine = engineWithSink('delivery-1');

  it('runs a one-off job at its time with the contract headers, signed', async () => {
    const tenant = await insertTenant(engine.db.pool);
    const runAt = new Date(Math.ceil((Date.now() + 1500) / 1000) * 1000);
    const job = await insertJob(engine.db.pool, tenant.id, {
      schedule: { type: 'once', runAt },
      url: engine.sink.url,
      payload: { report: 'daily' },
      headers: { 'x-team': 'billing' },
      partitions: engine.db.partitions,
    });
    // Materialized (the run and the job's update commit together): the job's row version then.
    await waitForRows(engine.db.pool, 'SELECT 1 FROM runs WHERE job_id = $1', [job.id], (r) => r.length === 1);
    const materialized = await engine.db.pool.query(
      `SELECT xmin::text AS version, j.status AS stored, ${jobStatusSql('j')} AS shown FROM jobs j WHERE j.id = $1`,
      [job.id],
    );
    const [d] = await engine.sink.waitFor((all) => all.some((x) => x.headers['belfry-job-id'] === job.id));
    expect(d).toBeDefined();
    if (!d) return;
    expect(d.at).toBeGreaterThanOrEqual(runAt.getTime());
    expect(d.method).toBe('POST');
    expect(JSON.parse(d.body)).toEqual({ report: 'daily' });
    expect(d.headers['x-team']).toBe('billing');
    expect(d.headers['belfry-scheduled-time']).toBe(runAt.toISOString());
    expect(d.headers['belfry-attempt']).toBe('1');
    expect(d.headers['idempotency-key']).toBe(d.headers['webhook-id']);
    const wh = new Webhook(tenant.secret);
    expect(() =>
      wh.verify(d.body, {
        'webhook-id': String(d.headers['webhook-id']),
        'webhook-timestamp': String(d.headers['webhook-timestamp']),
        'webhook-signature': String(d.headers['webhook-signature']),
      }),
    ).not.toThrow();
    const rows = await waitForRows<{ status: string; attempt: number }>(
      engine.db.pool,
      'SELECT status, attempt FROM runs WHERE job_id = $1',
      [job.id],
      (r) => r[0]?.status === 'succeeded',
    );
    expect(rows).toEqual([{ status: 'succeeded', attempt: 1 }]);
    // Stored completed when the occurrence was materialized and shown active while its run was
    // open; shown completed once it succeeded, the job's row untouched by the run's ending.
    if (materialized.rows[0]?.shown === 'active') {
      expect(materialized.rows[0]).toMatchObject({ stored: 'completed' });
    } else {
      expect(materialized.rows[0]).toMatchObject({ stored: 'completed', shown: 'completed' }); // already delivered
    }
    const job2 = await engine.db.pool.query(
      `SELECT xmin::text AS version, ${jobStatusSql('j')} AS shown FROM jobs j WHERE j.id = $1`,
      [job.id],
    );
    expect(job2.rows[0]).toEqual({ version: materialized.rows[0]?.version, shown: 'completed' });
    const attempts = await engine.db.pool.query(
      'SELECT status, http_status, worker_id FROM run_attempt_history WHERE job_id = $1',
      [job.id],
    );
    expect(attempts.rows).toEqual([{ status: 'succeeded', http_status: 200, worker_id: 'delivery-1' }]);
  });

  it('claims runs ahead of their time but never calls the target before it', async () => {
    const tenant = await insertTenant(engine.db.pool);
    const runAt = new Date(Math.ceil((Date.now() + 2500) / 1000) * 1000);
    const jobs = [];
    for (let i = 0; i < 20; i++) {
      jobs.push(
        await insertJob(engine.db.pool, tenant.id, {
          schedule: { type: 'once', runAt },
          url: engine.sink.url,
          partitions: engine.db.partitions,
        }),
      );
    }
    const ids = new Set(jobs.map((j) => j.id));
    // Watch the runs until they are due: claimed ahead, they turn 'running' before their time.
    let runningEarly = 0;
    while ((await dbNow(engine.db.pool)).getTime() < runAt.getTime() - 30) {
      const { rows } = await engine.db.pool.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM runs WHERE job_id = ANY($1::text[]) AND status = 'running' AND now() < $2`,
        [[...ids], runAt],
      );
      runningEarly = Math.max(runningEarly, rows[0]?.n ?? 0);
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(runningEarly).toBeGreaterThan(0);
    const got = await engine.sink.waitFor(
      (all) => all.filter((x) => ids.has(String(x.headers['belfry-job-id']))).length === 20,
    );
    const mine = got.filter((x) => ids.has(String(x.headers['belfry-job-id'])));
    for (const d of mine) expect(d.at).toBeGreaterThanOrEqual(runAt.getTime());
    const runs = await waitForRows<{ id: string; started_at: Date }>(
      engine.db.pool,
      `SELECT id, started_at FROM runs WHERE job_id = ANY($1::text[]) AND status = 'succeeded'`,
      [[...ids]],
      (r) => r.length === 20,
    );
    for (const r of runs) expect(r.started_at.getTime()).toBeGreaterThanOrEqual(runAt.getTime());
  });

  it('a run cancelled while it waits for its time, claimed ahead, is never delivered', async () => {
    const tenant = await insertTenant(engine.db.pool);
    const runAt = new Date(Math.ceil((Date.now() + 2500) / 1000) * 1000);
    const job = await insertJob(engine.db.pool, tenant.id, {
      schedule: { type: 'once', runAt },
      url: engine.sink.url,
      partitions: engine.db.partitions,
    });
    const [run] = await waitForRows<{ id: string; scheduled_time: Date }>(
      engine.db.pool,
      `SELECT id, scheduled_time FROM runs WHERE job_id = $1 AND status = 'running'`,
      [job.id],
      (r) => r.length === 1,
    );
    expect((await dbNow(engine.db.pool)).getTime()).toBeLessThan(runAt.getTime());
    // What the API's cancel does: the run row, and a word to the worker holding it.
    await engine.db.pool.query(
      `WITH c AS (UPDATE runs SET status = 'cancelled', finished_at = now(), lease_expires_at = NULL
                  WHERE id = $1 AND scheduled_time = $2 RETURNING id)
       SELECT pg_notify($3, id) FROM c`,
      [run?.id, run?.scheduled_time, CANCEL_CHANNEL],
    );
    const attempts = await waitForRows<{ status: string }>(
      engine.db.pool,
      'SELECT status FROM run_attempt_history WHERE run_id = $1',
      [run?.id],
      (r) => r[0]?.status === 'cancelled',
    );
    expect(attempts).toEqual([{ status: 'cancelled' }]);
    while (Date.now() < runAt.getTime() + 1_000) await new Promise((r) => setTimeout(r, 50));
    expect(engine.sink.deliveries.filter((d) => d.headers['belfry-job-id'] === job.id)).toEqual([]);
  });
});
