import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../test/db';
import { startEngineNode, type EngineNode } from '../../../test/engine-nodes';
import {
  insertJob,
  insertTenant,
  startSink,
  waitForRows,
  TEST_ENCRYPTION_KEY_MATERIAL,
  type Sink,
} from '../../../test/fixtures';

describe('engine: schedule to signed delivery', () => {
  let db: TestDatabase;
  let node: EngineNode;
  let sink: Sink;

  beforeAll(async () => {
    db = await createTestDatabase();
    sink = await startSink();
    node = await startEngineNode({
      databaseUrl: db.url,
      nodeId: 'delivery-1',
      env: { BELFRY_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY_MATERIAL },
    });
  });
  afterAll(async () => {
    await node?.stop();
    await sink?.close();
    await db?.destroy();
  });

  it('runs a one-off job at its time with the contract headers, signed', async () => {
    const tenant = await insertTenant(db.pool);
    const runAt = new Date(Math.ceil((Date.now() + 1500) / 1000) * 1000);
    const job = await insertJob(db.pool, tenant.id, {
      schedule: { type: 'once', runAt },
      url: sink.url,
      payload: { report: 'daily' },
      headers: { 'x-team': 'billing' },
      partitions: db.partitions,
    });
    const [d] = await sink.waitFor((all) => all.some((x) => x.headers['belfry-job-id'] === job.id));
    expect(d).toBeDefined();
    if (!d) return;
    expect(d.at).toBeGreaterThanOrEqual(runAt.getTime() - 50);
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
      db.pool,
      'SELECT status, attempt FROM runs WHERE job_id = $1',
      [job.id],
      (r) => r[0]?.status === 'succeeded',
    );
    expect(rows).toEqual([{ status: 'succeeded', attempt: 1 }]);
    const job2 = await db.pool.query('SELECT status FROM jobs WHERE id = $1', [job.id]);
    expect(job2.rows[0].status).toBe('completed');
    const attempts = await db.pool.query('SELECT status, http_status, worker_id FROM run_attempts WHERE job_id = $1', [
      job.id,
    ]);
    expect(attempts.rows).toEqual([{ status: 'succeeded', http_status: 200, worker_id: 'delivery-1' }]);
  });
});
