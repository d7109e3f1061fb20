// Schedule policies end to end on a real engine node: occurrences missed during an outage
// (misfire skip), occurrences that would overlap a still-running one (overlap skip), and a
// paused job whose already-queued runs were cancelled.
import { queuedMessages } from '@belfry/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../test/db';
import { type EngineNode, startEngineNode } from '../../../test/engine-nodes';
import {
  insertJob,
  insertTenant,
  type Sink,
  startSink,
  TEST_ENCRYPTION_KEY_MATERIAL,
  waitForRows,
  waitForValue,
} from '../../../test/fixtures';
import { dbNow, trackOpenRequests } from './support';

interface RunRow {
  id: string;
  t: Date;
  status: string;
  skip_reason: string | null;
}

describe('engine: misfire, overlap and pause', () => {
  let db: TestDatabase;
  let node: EngineNode;
  let sink: Sink;
  let tenantId: string;
  let openPerJob: Map<string, number>;
  const delays = new Map<string, number>();

  beforeAll(async () => {
    db = await createTestDatabase();
    await db.pool.query('SELECT 1');
    sink = await startSink();
    sink.respond = (d) => ({ status: 200, delayMs: delays.get(String(d.headers['belfry-job-id'])) ?? 0 });
    openPerJob = trackOpenRequests(sink.server, (req) => String(req.headers['belfry-job-id'])).max;
    node = await startEngineNode({
      databaseUrl: db.url,
      nodeId: 'policies-1',
      env: {
        BELFRY_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY_MATERIAL,
        BELFRY_MISFIRE_GRACE_SECONDS: '2',
        BELFRY_SHUTDOWN_GRACE_SECONDS: '1',
      },
    });
    tenantId = (await insertTenant(db.pool)).id;
  });
  afterAll(async () => {
    await node?.stop();
    await sink?.close();
    await db?.destroy();
  });

  const runsOf = async (jobId: string) =>
    (
      await db.pool.query<RunRow>(
        'SELECT id, scheduled_time AS t, status, skip_reason FROM runs WHERE job_id = $1 ORDER BY scheduled_time',
        [jobId],
      )
    ).rows;
  const deliveriesOf = (jobId: string) => sink.deliveries.filter((d) => d.headers['belfry-job-id'] === jobId);
  /** Pauses as the API does: no more schedule, and runs that have not started are cancelled. */
  const pause = async (jobId: string) => {
    const client = await db.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query(`UPDATE jobs SET status = 'paused', updated_at = now() WHERE id = $1`, [jobId]);
      await client.query('UPDATE jobs SET next_run_at = NULL WHERE id = $1', [jobId]);
      const { rows } = await client.query<{ id: string }>(
        `UPDATE runs SET status = 'cancelled', finished_at = now(), next_attempt_at = NULL
         WHERE job_id = $1 AND status IN ('pending', 'failed') RETURNING id`,
        [jobId],
      );
      await client.query('COMMIT');
      return rows.map((r) => r.id);
    } finally {
      client.release();
    }
  };
  /** Waits until a worker has taken (and dropped or run) the queue messages of these runs. */
  const messagesSettled = (runIds: string[]) =>
    waitForValue(
      () => queuedMessages(db.pool, { runIds, waitingOnly: true }),
      (rows) => rows.length === 0,
    );

  it('misfire skip: occurrences missed during an outage are recorded skipped; only a future one is delivered', async () => {
    const now = await dbNow(db.pool);
    const anchor = new Date(Math.floor(now.getTime() / 5_000) * 5_000);
    const job = await insertJob(db.pool, tenantId, {
      schedule: { type: 'interval', everySeconds: 5, anchor: new Date(anchor.getTime() - 3_600_000) },
      nextRunAt: new Date(anchor.getTime() - 300_000),
      misfirePolicy: 'skip',
      url: sink.url,
      partitions: db.partitions,
    });
    const [first] = await sink.waitFor((all) => all.some((d) => d.headers['belfry-job-id'] === job.id));
    const delivered = deliveriesOf(job.id)[0] ?? first;
    const runs = await runsOf(job.id);
    const skipped = runs.filter((r) => r.status === 'skipped');
    expect(skipped.length).toBeGreaterThanOrEqual(60);
    expect(skipped.every((r) => r.skip_reason === 'misfire')).toBe(true);
    // Contiguous from the first missed occurrence, every 5 s.
    expect(skipped.map((r) => r.t.getTime())).toEqual(skipped.map((_, i) => anchor.getTime() - 300_000 + i * 5_000));
    const lastSkipped = skipped.at(-1)!.t.getTime();
    expect(lastSkipped).toBeGreaterThanOrEqual(anchor.getTime() - 5_000);
    // The first delivery is the first occurrence after the outage, not a missed one.
    expect(new Date(String(delivered?.headers['belfry-scheduled-time'])).getTime()).toBe(lastSkipped + 5_000);
    expect(delivered!.at).toBeGreaterThanOrEqual(lastSkipped + 5_000 - 50);
    expect(runs.filter((r) => r.status !== 'skipped').every((r) => r.t.getTime() > lastSkipped)).toBe(true);
    await pause(job.id);
  });

  it('overlap skip: an occurrence due while the previous run is still running is skipped, never run alongside', async () => {
    const now = await dbNow(db.pool);
    const anchor = new Date(Math.ceil(now.getTime() / 1000) * 1000);
    const job = await insertJob(db.pool, tenantId, {
      schedule: { type: 'interval', everySeconds: 1, anchor },
      overlapPolicy: 'skip',
      timeoutSeconds: 10,
      url: sink.url,
      partitions: db.partitions,
    });
    delays.set(job.id, 2_500);
    await sink.waitFor((all) => all.filter((d) => d.headers['belfry-job-id'] === job.id).length >= 3, 30_000);
    const rows = await waitForRows<RunRow>(
      db.pool,
      `SELECT id, scheduled_time AS t, status, skip_reason FROM runs WHERE job_id = $1 AND status = 'skipped'`,
      [job.id],
      (r) => r.length >= 3,
    );
    expect(rows.every((r) => r.skip_reason === 'overlap')).toBe(true);
    await pause(job.id);
    expect(openPerJob.get(job.id)).toBe(1);
    const delivered = new Set(deliveriesOf(job.id).map((d) => d.headers['webhook-id']));
    for (const r of rows) expect(delivered.has(r.id)).toBe(false);
  });

  it('overlap skip holds for a backlog queued at once (catch-up after an outage)', async () => {
    const now = await dbNow(db.pool);
    const anchor = new Date(Math.floor(now.getTime() / 1000) * 1000);
    const job = await insertJob(db.pool, tenantId, {
      schedule: { type: 'interval', everySeconds: 1, anchor: new Date(anchor.getTime() - 3_600_000) },
      nextRunAt: new Date(anchor.getTime() - 20_000),
      misfirePolicy: 'catch_up',
      overlapPolicy: 'skip',
      timeoutSeconds: 10,
      url: sink.url,
      partitions: db.partitions,
    });
    delays.set(job.id, 1_500);
    // The catch-up scan queues ten missed occurrences in one go; one may run, the rest overlap it.
    const skipped = await waitForRows<RunRow>(
      db.pool,
      `SELECT id, scheduled_time AS t, status, skip_reason FROM runs WHERE job_id = $1 AND skip_reason = 'overlap'`,
      [job.id],
      (r) => r.length >= 9,
    );
    await sink.waitFor((all) => all.some((d) => d.headers['belfry-job-id'] === job.id));
    await pause(job.id);
    const cancelledOrDone = await runsOf(job.id);
    await messagesSettled(cancelledOrDone.map((r) => r.id));
    await waitForRows(
      db.pool,
      `SELECT 1 FROM runs WHERE job_id = $1 AND status = 'running'`,
      [job.id],
      (r) => r.length === 0,
    );
    expect(openPerJob.get(job.id)).toBe(1);
    const delivered = new Set(deliveriesOf(job.id).map((d) => d.headers['webhook-id']));
    for (const r of skipped) expect(delivered.has(r.id)).toBe(false);
  });

  it('pause: a queued run cancelled before its time is never delivered', async () => {
    const runAt = new Date((await dbNow(db.pool)).getTime() + 1_500);
    const job = await insertJob(db.pool, tenantId, {
      schedule: { type: 'once', runAt },
      url: sink.url,
      partitions: db.partitions,
    });
    // The look-ahead materializes and queues it early; cancel it while it waits.
    const [queued] = await waitForValue(
      async () => {
        const messages = await queuedMessages(db.pool, { jobId: job.id });
        const { rows } = await db.pool.query<{ id: string }>(
          `SELECT id FROM runs WHERE job_id = $1 AND status = 'pending'`,
          [job.id],
        );
        return rows.filter((r) => messages.some((m) => m.runId === r.id));
      },
      (r) => r.length === 1,
    );
    expect(await pause(job.id)).toEqual([queued?.id]);
    await messagesSettled([queued!.id]);
    expect(deliveriesOf(job.id)).toEqual([]);
    expect(await runsOf(job.id)).toMatchObject([{ id: queued?.id, status: 'cancelled' }]);
    expect((await db.pool.query('SELECT 1 FROM run_attempt_history WHERE job_id = $1', [job.id])).rowCount).toBe(0);
  });

  it('pause of a running interval job: no cancelled run is delivered and nothing new is scheduled', async () => {
    const now = await dbNow(db.pool);
    const job = await insertJob(db.pool, tenantId, {
      schedule: { type: 'interval', everySeconds: 1, anchor: new Date(Math.ceil(now.getTime() / 1000) * 1000) },
      url: sink.url,
      partitions: db.partitions,
    });
    await sink.waitFor((all) => all.filter((d) => d.headers['belfry-job-id'] === job.id).length >= 2);
    const cancelled = await pause(job.id);
    const pausedAt = await dbNow(db.pool);
    expect(cancelled.length).toBeGreaterThan(0); // the look-ahead had queued the next ones
    await messagesSettled(cancelled);
    const delivered = new Set(deliveriesOf(job.id).map((d) => d.headers['webhook-id']));
    for (const id of cancelled) expect(delivered.has(id)).toBe(false);
    const created = await db.pool.query('SELECT 1 FROM runs WHERE job_id = $1 AND created_at > $2', [job.id, pausedAt]);
    expect(created.rowCount).toBe(0);
  });
});
