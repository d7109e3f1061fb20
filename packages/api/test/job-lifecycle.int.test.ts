// What a job's `status` and `nextRunAt` say, and what pause and delete do, while a real engine
// node materializes occurrences ahead of time and claims them before they are due (contract
// §2: a one-off is `completed` once its run has finished; `nextRunAt` is the next occurrence
// that has not started; a run claimed ahead is stopped by pause and delete and never calls
// its target; one whose call has begun is left running).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EngineNode, startEngineNode } from '../../../test/engine-nodes';
import { type Sink, startSink, waitForRows } from '../../../test/fixtures';
import { Job, type JobView } from '../src/index';
import { client, createHarness, type Harness, makeTenant, type TestTenant } from './support';

let h: Harness;
let node: EngineNode;
let sink: Sink;
let t: TestTenant;
let api: ReturnType<typeof client>;
const failing = new Set<string>(); // jobs whose deliveries answer 500
const slow = new Map<string, number>(); // jobs whose deliveries answer after a delay

beforeAll(async () => {
  h = await createHarness();
  sink = await startSink();
  sink.respond = (d) => {
    const jobId = String(d.headers['belfry-job-id']);
    return { status: failing.has(jobId) ? 500 : 200, delayMs: slow.get(jobId) ?? 0 };
  };
  node = await startEngineNode({
    databaseUrl: h.db.url,
    nodeId: 'lifecycle-1',
    env: { BELFRY_ENCRYPTION_KEY: 'test-encryption-key-material', BELFRY_SHUTDOWN_GRACE_SECONDS: '1' },
  });
  t = await makeTenant(h);
  api = client(h, t.key);
});
afterAll(async () => {
  await node?.stop();
  await sink?.close();
  await h?.close();
});

async function dbNow(): Promise<number> {
  const { rows } = await h.db.pool.query<{ ms: number }>(`SELECT (extract(epoch FROM now()) * 1000)::float8 AS ms`);
  return Number(rows[0]?.ms);
}

async function createOnce(runAt: number, extra: Record<string, unknown> = {}): Promise<JobView> {
  const res = await api.post('/api/v1/jobs', {
    name: 'one-off',
    schedule: { type: 'once', runAt: new Date(runAt).toISOString() },
    target: { type: 'http', url: sink.url },
    retry: { maxAttempts: 1, initialDelaySeconds: 0, maxDelaySeconds: 1 },
    ...extra,
  });
  expect(res.status).toBe(201);
  return Job.parse(res.body);
}

const getJob = async (id: string): Promise<JobView> => Job.parse((await api.get(`/api/v1/jobs/${id}`)).body);

/** The job's scheduled runs, earliest first. */
const runsOf = (jobId: string, predicate: (rows: RunRow[]) => boolean, timeoutMs?: number) =>
  waitForRows<RunRow>(
    h.db.pool,
    `SELECT id, scheduled_time, status, attempt FROM runs WHERE job_id = $1 AND trigger = 'schedule' ORDER BY scheduled_time`,
    [jobId],
    predicate,
    timeoutMs,
  );
interface RunRow {
  id: string;
  scheduled_time: Date;
  status: string;
  attempt: number;
}

async function waitForJob(id: string, predicate: (job: JobView) => boolean, timeoutMs = 30_000): Promise<JobView> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const job = await getJob(id);
    if (predicate(job)) return job;
    if (Date.now() > deadline) throw new Error(`job ${id} never matched; last: ${JSON.stringify(job)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const deliveriesOf = (jobId: string) => sink.deliveries.filter((d) => d.headers['belfry-job-id'] === jobId);

/**
 * Makes the run's queue message claimable now, seconds before the run is due, and wakes the
 * workers: the worker claims it at once and then waits for the scheduled time, as it does in
 * the last 500 ms before every run (a window too short for a test to act in reliably).
 */
async function claimEarly(runId: string): Promise<void> {
  const queue = `t.${t.tenantId}.normal`;
  const { rowCount } = await h.db.pool.query(
    `UPDATE pgboss.job SET start_after = now() WHERE name = $1 AND data->>'runId' = $2 AND state = 'created'`,
    [queue, runId],
  );
  expect(rowCount).toBe(1);
  await h.db.pool.query('SELECT pg_notify($1, $2)', ['belfry_wake', JSON.stringify([{ q: queue, at: Date.now() }])]);
}

describe('a one-off job', () => {
  it('stays active, its pending run as nextRunAt, until the run has finished; then completed, and pause is 409', async () => {
    const runAt = Math.ceil((await dbNow()) / 1000) * 1000 + 4_000;
    const job = await createOnce(runAt);
    // The scheduler materializes it at once (10 s look-ahead) and retires its schedule entry.
    await runsOf(job.id, (r) => r.length === 1);
    const waiting = await getJob(job.id);
    expect(waiting).toMatchObject({ status: 'active', nextRunAt: new Date(runAt).toISOString() });

    await sink.waitFor(() => deliveriesOf(job.id).length === 1);
    await runsOf(job.id, (r) => r[0]?.status === 'succeeded');
    expect(await getJob(job.id)).toMatchObject({ status: 'completed', nextRunAt: null });
    expect((await api.post(`/api/v1/jobs/${job.id}/pause`)).status).toBe(409);
  });

  it('can be paused until its run has started; resumed before its time it runs then', async () => {
    const runAt = Math.ceil((await dbNow()) / 1000) * 1000 + 6_000;
    const job = await createOnce(runAt);
    await runsOf(job.id, (r) => r.length === 1 && r[0]?.status === 'pending');
    const paused = await api.post(`/api/v1/jobs/${job.id}/pause`);
    expect(paused.status).toBe(200);
    expect(paused.body).toMatchObject({ status: 'paused', nextRunAt: null });
    // The occurrence was not due yet: withdrawn, so that resuming can still run it.
    await runsOf(job.id, (r) => r.length === 0);
    const resumed = await api.post(`/api/v1/jobs/${job.id}/resume`);
    expect(resumed.body).toMatchObject({ status: 'active', nextRunAt: new Date(runAt).toISOString() });
    await sink.waitFor(() => deliveriesOf(job.id).length === 1);
    expect(new Date(String(deliveriesOf(job.id)[0]?.headers['belfry-scheduled-time'])).getTime()).toBe(runAt);
    await waitForJob(job.id, (j) => j.status === 'completed');
  });

  it('is completed when its run ends dead, cancelled or skipped', async () => {
    const now = await dbNow();
    const dies = await createOnce(now + 1_000);
    failing.add(dies.id);
    const cancelled = await createOnce(now + 9_000);
    const missed = await createOnce(now - 600_000, { misfirePolicy: 'skip' });

    const [pending] = await runsOf(cancelled.id, (r) => r.length === 1);
    expect((await getJob(cancelled.id)).status).toBe('active');
    expect((await api.post(`/api/v1/runs/${pending?.id}/cancel`)).status).toBe(200);
    expect(await getJob(cancelled.id)).toMatchObject({ status: 'completed', nextRunAt: null });

    await runsOf(dies.id, (r) => r[0]?.status === 'dead');
    expect((await getJob(dies.id)).status).toBe('completed');

    await runsOf(missed.id, (r) => r[0]?.status === 'skipped');
    expect((await getJob(missed.id)).status).toBe('completed');
    expect(deliveriesOf(cancelled.id)).toEqual([]);
    expect(deliveriesOf(missed.id)).toEqual([]);
  });
});

describe('nextRunAt', () => {
  it('is the occurrence materialized ahead, not the one after it', async () => {
    const created = await api.post('/api/v1/jobs', {
      name: 'every 8 s',
      schedule: { type: 'interval', everySeconds: 8 },
      target: { type: 'http', url: sink.url },
    });
    const job = Job.parse(created.body);
    const first = Date.parse(job.createdAt) + 8_000;
    expect(job.nextRunAt).toBe(new Date(first).toISOString());
    // Materialized at once (within the look-ahead); the schedule entry moves to the one after.
    const [run] = await runsOf(job.id, (r) => r.length === 1);
    expect(run?.scheduled_time.getTime()).toBe(first);
    const entry = await h.db.pool.query('SELECT next_run_at FROM jobs WHERE id = $1', [job.id]);
    expect(entry.rows[0].next_run_at.getTime()).toBe(first + 8_000);
    expect((await getJob(job.id)).nextRunAt).toBe(new Date(first).toISOString());
    // Once it has started, the next one that has not.
    await sink.waitFor(() => deliveriesOf(job.id).length >= 1);
    expect(Date.parse((await getJob(job.id)).nextRunAt ?? '')).toBeGreaterThan(first);
    await api.post(`/api/v1/jobs/${job.id}/pause`);
  });
});

describe('a run claimed ahead of its time', () => {
  it('is cancelled by pause and never calls its target, even when its worker missed the notification', async () => {
    const runAt = Math.ceil((await dbNow()) / 1000) * 1000 + 6_000;
    const job = await createOnce(runAt);
    const [pending] = await runsOf(job.id, (r) => r[0]?.status === 'pending');
    await claimEarly(pending!.id);
    await runsOf(job.id, (r) => r[0]?.status === 'running');
    // Frozen, the worker cannot hear the cancel notification: when it wakes, its timer for
    // the scheduled time fires before it reads its socket.
    node.signal('SIGSTOP');
    try {
      const paused = await api.post(`/api/v1/jobs/${job.id}/pause`);
      expect(paused.status).toBe(200);
      expect(paused.body.status).toBe('paused');
      const [run] = await runsOf(job.id, (r) => r.length === 1);
      expect(run?.status).toBe('cancelled');
      while ((await dbNow()) < runAt + 300) await new Promise((r) => setTimeout(r, 100));
    } finally {
      node.signal('SIGCONT');
    }
    await node.waitForLog(
      (l) => l.runId === pending?.id && /cancelled or taken back before it started/.test(String(l.msg)),
    );
    expect(deliveriesOf(job.id)).toEqual([]);
    const attempts = await h.db.pool.query('SELECT status, error FROM run_attempt_history WHERE run_id = $1', [
      pending?.id,
    ]);
    expect(attempts.rows).toEqual([{ status: 'cancelled', error: 'cancelled before it started' }]);
    // Its occurrence is spent: resuming completes the one-off without running it.
    expect((await api.post(`/api/v1/jobs/${job.id}/resume`)).body).toMatchObject({
      status: 'completed',
      nextRunAt: null,
    });
  });

  it('is cancelled by delete and never calls its target', async () => {
    const runAt = Math.ceil((await dbNow()) / 1000) * 1000 + 5_000;
    const job = await createOnce(runAt);
    const [pending] = await runsOf(job.id, (r) => r[0]?.status === 'pending');
    await claimEarly(pending!.id);
    await runsOf(job.id, (r) => r[0]?.status === 'running');
    expect((await api.del(`/api/v1/jobs/${job.id}`)).status).toBe(204);
    expect((await api.get(`/api/v1/runs/${pending?.id}`)).body.status).toBe('cancelled');
    // The worker hears of it while it waits, drops it, and says so.
    await node.waitForLog((l) => l.runId === pending?.id && /completion rejected/.test(String(l.msg)));
    expect(deliveriesOf(job.id)).toEqual([]);
  });

  it('is left running by pause once its target call has begun', async () => {
    const runAt = Math.ceil((await dbNow()) / 1000) * 1000 + 2_000;
    const job = await createOnce(runAt);
    slow.set(job.id, 1_500);
    await sink.waitFor(() => deliveriesOf(job.id).length === 1);
    const paused = await api.post(`/api/v1/jobs/${job.id}/pause`);
    expect(paused.body.status).toBe('paused');
    const [run] = await runsOf(job.id, (r) => r.length === 1);
    expect(run?.status).toBe('running');
    await runsOf(job.id, (r) => r[0]?.status === 'succeeded');
    expect(deliveriesOf(job.id)).toHaveLength(1);
    // Paused wins over completed; resuming finds the occurrence done.
    expect((await getJob(job.id)).status).toBe('paused');
    expect((await api.post(`/api/v1/jobs/${job.id}/resume`)).body.status).toBe('completed');
  });
});
