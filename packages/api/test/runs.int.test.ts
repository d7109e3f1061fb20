// Contract tests of runs: trigger (a run row AND its pg-boss message, atomically), a job's
// run history, one run with its attempts, cancel and replay.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { idTime } from '@belfry/core';
import { CANCEL_CHANNEL, claimRuns, closeCancelledAttempt, completeAttempts, queuedMessages } from '@belfry/db';
import pg from 'pg';
import { jobTimeline, TimelineInput } from '../src/dashboard/timeline';
import { runDetail } from '../src/dashboard/run-detail';
import { Run, RunPage } from '../src/index';
import { insertAndEnqueueRuns } from '../src/services/run-enqueue';
import { cancelRunningContainerRuns } from '../src/services/schedule-entries';
import { withTransaction } from '../src/sql/tx';
import { client, createHarness, type Harness, insertRun, jobBody, makeTenant, type TestTenant } from './support';

let h: Harness;
let t: TestTenant;
let api: ReturnType<typeof client>;

beforeAll(async () => {
  h = await createHarness();
  t = await makeTenant(h);
  api = client(h, t.key);
});
afterAll(() => h.close());

async function queued(runId: string) {
  const messages = await queuedMessages(h.db.pool, { runIds: [runId] });
  return messages.map((m) => ({ name: m.name, data: { runId: m.runId, scheduledTime: m.scheduledTime } }));
}

async function newJob(overrides: Record<string, unknown> = {}): Promise<string> {
  return (await api.post('/api/v1/jobs', jobBody(overrides))).body.id;
}

describe('POST /api/v1/jobs/{id}/trigger', () => {
  it('creates a pending manual run and its message on the tenant/priority queue, in one go', async () => {
    const jobId = await newJob({ priority: 'high' });
    const before = Date.now();
    const res = await api.post(`/api/v1/jobs/${jobId}/trigger`);
    expect(res.status).toBe(201);
    const run = Run.parse(res.body);
    expect(res.headers.get('location')).toBe(`/api/v1/runs/${run.id}`);
    expect(run).toMatchObject({
      jobId,
      status: 'pending',
      skipReason: null,
      attempt: 0,
      trigger: 'manual',
      replayOf: null,
      startedAt: null,
      finishedAt: null,
      attempts: [],
    });
    expect(Date.parse(run.scheduledTime)).toBeGreaterThanOrEqual(before - 1);
    expect(idTime(run.id)?.toISOString()).toBe(run.scheduledTime);
    const messages = await queued(run.id);
    expect(messages).toEqual([
      { name: `t.${t.tenantId}.high`, data: { runId: run.id, scheduledTime: run.scheduledTime } },
    ]);
    const { rows } = await h.db.pool.query('SELECT priority FROM runs WHERE id = $1', [run.id]);
    expect(rows[0].priority).toBe('high');
  });

  it('works on a paused job (a manual run is outside the schedule); 404 for unknown or deleted jobs', async () => {
    const jobId = await newJob();
    await api.post(`/api/v1/jobs/${jobId}/pause`);
    expect((await api.post(`/api/v1/jobs/${jobId}/trigger`)).status).toBe(201);
    await api.del(`/api/v1/jobs/${jobId}`);
    expect((await api.post(`/api/v1/jobs/${jobId}/trigger`)).status).toBe(404);
    expect((await api.post('/api/v1/jobs/job_01KB3Y8J2Q7Z9V4N6M5X0C1R2T/trigger')).status).toBe(404);
  });

  it('the run row and its message commit together and roll back together', async () => {
    const jobId = await newJob();
    const now = new Date(Math.floor(Date.now()));
    let rolledBack: string | undefined;
    await expect(
      withTransaction(h.db.pool, async (c) => {
        const [run] = await insertAndEnqueueRuns(c, h.queue, t.tenantId, now, [
          { jobId, priority: 'normal', target: { type: 'http' }, replayOf: null },
        ]);
        rolledBack = run?.id;
        expect(await queued(rolledBack as string)).toHaveLength(0); // not visible outside the transaction yet
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(rolledBack).toBeDefined();
    expect((await h.db.pool.query('SELECT 1 FROM runs WHERE id = $1', [rolledBack])).rowCount).toBe(0);
    expect(await queued(rolledBack as string)).toHaveLength(0);

    const committed = await withTransaction(h.db.pool, (c) =>
      insertAndEnqueueRuns(c, h.queue, t.tenantId, now, [
        { jobId, priority: 'low', target: { type: 'http' }, replayOf: null },
      ]),
    );
    const id = committed[0]?.id as string;
    expect((await h.db.pool.query('SELECT 1 FROM runs WHERE id = $1', [id])).rowCount).toBe(1);
    expect((await queued(id)).map((m) => m.name)).toEqual([`t.${t.tenantId}.low`]);
  });
});

describe('GET /api/v1/jobs/{id}/runs and /api/v1/runs/{runId}', () => {
  let jobId: string;
  const ids: string[] = [];

  beforeAll(async () => {
    jobId = await newJob();
    const base = Date.now() - 10 * 60_000;
    for (let i = 0; i < 7; i++) {
      ids.push(
        await insertRun(h, {
          tenantId: t.tenantId,
          jobId,
          status: i % 2 === 0 ? 'succeeded' : 'dead',
          scheduledTime: new Date(base + i * 60_000),
          attempts: i % 2 === 0 ? 1 : 3,
        }),
      );
    }
  });

  it('lists newest first with attempts, paginates, and filters by status', async () => {
    const page1 = await api.get(`/api/v1/jobs/${jobId}/runs?limit=3`);
    expect(page1.status).toBe(200);
    const parsed = RunPage.parse(page1.body);
    expect(parsed.data.map((r) => r.id)).toEqual([ids[6], ids[5], ids[4]]);
    expect(parsed.data[1]?.attempts).toHaveLength(3);
    const rest: string[] = [];
    let cursor = parsed.nextCursor;
    while (cursor) {
      const page = await api.get(`/api/v1/jobs/${jobId}/runs?limit=3&cursor=${cursor}`);
      rest.push(...page.body.data.map((r: { id: string }) => r.id));
      cursor = page.body.nextCursor;
    }
    expect(rest).toEqual([ids[3], ids[2], ids[1], ids[0]]);
    const dead = await api.get(`/api/v1/jobs/${jobId}/runs?status=dead`);
    expect(dead.body.data.map((r: { id: string }) => r.id)).toEqual([ids[5], ids[3], ids[1]]);
    expect((await api.get(`/api/v1/jobs/${jobId}/runs?status=bogus`)).status).toBe(400);
    expect((await api.get('/api/v1/jobs/job_01KB3Y8J2Q7Z9V4N6M5X0C1R2T/runs')).status).toBe(404);
  });

  it('rejects a cursor from another list', async () => {
    const jobs = await api.get('/api/v1/jobs?limit=1');
    expect(jobs.body.nextCursor).not.toBeNull();
    expect((await api.get(`/api/v1/jobs/${jobId}/runs?cursor=${jobs.body.nextCursor}`)).status).toBe(400);
  });

  it('gets one run with every attempt in order, in the contract shape', async () => {
    const res = await api.get(`/api/v1/runs/${ids[1]}`);
    expect(res.status).toBe(200);
    const run = Run.parse(res.body);
    expect(run.attempts.map((a) => a.attempt)).toEqual([1, 2, 3]);
    expect(run.attempts[0]).toEqual({
      attempt: 1,
      workerId: 'worker-1',
      startedAt: run.scheduledTime,
      finishedAt: run.scheduledTime,
      status: 'failed',
      httpStatus: 503,
      durationMs: 120,
      error: 'HTTP 503',
      responseSnippet: 'unavailable',
      exitCode: null,
    });
    expect(Object.keys(run).sort()).toEqual(
      [
        'id',
        'jobId',
        'scheduledTime',
        'dueAt',
        'status',
        'skipReason',
        'attempt',
        'trigger',
        'replayOf',
        'createdAt',
        'startedAt',
        'finishedAt',
        'attempts',
      ].sort(),
    );
  });

  it('answers 404 for unknown, malformed and wrong-prefix run ids', async () => {
    for (const id of [
      'run_01KB3Y8J2Q7Z9V4N6M5X0C1R2T',
      'run_nope',
      jobId,
      'run_ZZZZZZZZZZZZZZZZZZZZZZZZZZ',
      '%E0%A4%A',
    ]) {
      expect((await api.get(`/api/v1/runs/${id}`)).status, id).toBe(404);
    }
  });
});

describe('cancel and replay', () => {
  it('cancels pending, retry-waiting and running runs; finished ones are 409', async () => {
    const jobId = await newJob();
    for (const status of ['pending', 'failed', 'running']) {
      const id = await insertRun(h, { tenantId: t.tenantId, jobId, status, finishedAt: null });
      const res = await api.post(`/api/v1/runs/${id}/cancel`);
      expect(res.status, status).toBe(200);
      expect(Run.parse(res.body)).toMatchObject({ id, status: 'cancelled' });
      expect(res.body.finishedAt).not.toBeNull();
    }
    for (const status of ['succeeded', 'dead', 'cancelled', 'skipped']) {
      const id = await insertRun(h, { tenantId: t.tenantId, jobId, status });
      const res = await api.post(`/api/v1/runs/${id}/cancel`);
      expect(res.status, status).toBe(409);
      expect(res.body.status).toBe(409);
    }
    expect((await api.post('/api/v1/runs/run_01KB3Y8J2Q7Z9V4N6M5X0C1R2T/cancel')).status).toBe(404);
  });

  it('tells the worker holding a running run that it was cancelled; pending runs need no word', async () => {
    const jobId = await newJob();
    const listener = new pg.Client({ connectionString: h.db.url });
    const heard: string[] = [];
    listener.on('notification', (n) => {
      if (n.channel === CANCEL_CHANNEL && n.payload) heard.push(n.payload);
    });
    await listener.connect();
    await listener.query(`LISTEN ${CANCEL_CHANNEL}`);
    try {
      const running = await insertRun(h, { tenantId: t.tenantId, jobId, status: 'running', finishedAt: null });
      const pending = await insertRun(h, { tenantId: t.tenantId, jobId, status: 'pending', finishedAt: null });
      expect((await api.post(`/api/v1/runs/${running}/cancel`)).status).toBe(200);
      expect((await api.post(`/api/v1/runs/${pending}/cancel`)).status).toBe(200);
      await listener.query('SELECT 1'); // notifications committed before this round trip have arrived
      expect(heard).toEqual([running]);
    } finally {
      await listener.end();
    }
  });

  it('replays a finished run as a new linked run, enqueued; unfinished runs are 409', async () => {
    const jobId = await newJob({ priority: 'low' });
    const dead = await insertRun(h, { tenantId: t.tenantId, jobId, status: 'dead', attempts: 2 });
    const res = await api.post(`/api/v1/runs/${dead}/replay`);
    expect(res.status).toBe(201);
    const run = Run.parse(res.body);
    expect(run).toMatchObject({
      jobId,
      trigger: 'replay',
      replayOf: dead,
      status: 'pending',
      attempt: 0,
      attempts: [],
    });
    expect(res.headers.get('location')).toBe(`/api/v1/runs/${run.id}`);
    expect((await queued(run.id)).map((m) => m.name)).toEqual([`t.${t.tenantId}.low`]);
    for (const status of ['pending', 'running', 'failed']) {
      const id = await insertRun(h, { tenantId: t.tenantId, jobId, status, finishedAt: null });
      expect((await api.post(`/api/v1/runs/${id}/replay`)).status, status).toBe(409);
    }
    const { rows } = await h.db.pool.query(
      `SELECT details FROM audit_log WHERE action = 'run.replayed' AND target_id = $1`,
      [dead],
    );
    expect(rows[0].details).toEqual({ jobId, newRunId: run.id });
  });

  it('refuses to replay a run whose job was deleted (409)', async () => {
    const jobId = await newJob();
    const dead = await insertRun(h, { tenantId: t.tenantId, jobId, status: 'dead' });
    await api.del(`/api/v1/jobs/${jobId}`);
    expect((await api.post(`/api/v1/runs/${dead}/replay`)).status).toBe(409);
  });
});

// An attempt's row is written when it ends; until then the run row carries it, and a run shows
// it exactly as the open attempt row it used to have.
describe('the attempt in progress', () => {
  const running = (attempt: number, workerId: string, startedAt: string) => ({
    attempt,
    workerId,
    startedAt,
    finishedAt: null,
    status: 'running',
    httpStatus: null,
    durationMs: null,
    error: null,
    responseSnippet: null,
    exitCode: null,
  });
  const runOf = async (id: string) => Run.parse((await api.get(`/api/v1/runs/${id}`)).body);

  it('shows a run claimed ahead as running from its due time, and its cancel before it started', async () => {
    const jobId = await newJob();
    const scheduledTime = new Date(Date.now() + 60_000);
    const id = await insertRun(h, { tenantId: t.tenantId, jobId, status: 'pending', scheduledTime, finishedAt: null });
    expect(await claimRuns(h.db.pool, 'worker-ahead', 30_000, [id], [scheduledTime])).toHaveLength(1);
    expect(await h.db.pool.query('SELECT 1 FROM run_attempt_history WHERE run_id = $1', [id])).toMatchObject({
      rowCount: 0,
    });

    const run = await runOf(id);
    expect(run).toMatchObject({ status: 'running', attempt: 1 });
    expect(run.attempts).toEqual([running(1, 'worker-ahead', scheduledTime.toISOString())]);
    const list = await api.get(`/api/v1/jobs/${jobId}/runs`);
    expect(list.body.data[0].attempts).toEqual(run.attempts);

    // Pausing cancels it before it started: the attempt's one row says so (it starts when it
    // ends, never after: it would have started when due).
    expect((await api.post(`/api/v1/jobs/${jobId}/pause`)).status).toBe(200);
    const cancelled = await runOf(id);
    expect(cancelled.status).toBe('cancelled');
    expect(cancelled.attempts).toEqual([
      {
        ...running(1, 'worker-ahead', cancelled.attempts[0]?.finishedAt ?? ''),
        status: 'cancelled',
        finishedAt: expect.any(String),
        error: 'cancelled before it started',
      },
    ]);
    expect(cancelled.attempts[0]?.finishedAt).not.toBeNull();
  });

  // A cancelled run whose worker will never report its end gets its attempt's row from the
  // cancel; a report arriving after all changes nothing.
  const reportCancelled = (id: string, scheduledTime: Date, worker: string) =>
    closeCancelledAttempt(h.db.pool, { runId: id, scheduledTime, tenantId: t.tenantId, attempt: 1, worker });

  it('cancelling a run claimed ahead records its attempt at once', async () => {
    const jobId = await newJob();
    const scheduledTime = new Date(Date.now() + 60_000);
    const id = await insertRun(h, { tenantId: t.tenantId, jobId, status: 'pending', scheduledTime, finishedAt: null });
    await claimRuns(h.db.pool, 'worker-ahead', 30_000, [id], [scheduledTime]);
    const res = await api.post(`/api/v1/runs/${id}/cancel`);
    expect(res.status).toBe(200);
    const answered = Run.parse(res.body);
    const finishedAt = answered.finishedAt ?? '';
    const recorded = [
      {
        ...running(1, 'worker-ahead', finishedAt),
        status: 'cancelled',
        finishedAt,
        error: 'cancelled before it started',
      },
    ];
    expect(answered.attempts).toEqual(recorded);
    await reportCancelled(id, scheduledTime, 'worker-ahead');
    expect((await runOf(id)).attempts).toEqual(recorded);
  });

  it('cancelling a run whose lease expired records its attempt at once, from its start', async () => {
    const jobId = await newJob();
    const scheduledTime = new Date(Date.now() - 60_000);
    const id = await insertRun(h, { tenantId: t.tenantId, jobId, status: 'pending', scheduledTime, finishedAt: null });
    await claimRuns(h.db.pool, 'worker-gone', 30_000, [id], [scheduledTime]);
    const { rows } = await h.db.pool.query<{ attempt_started_at: Date }>(
      `UPDATE runs SET lease_expires_at = now() - interval '1 second' WHERE id = $1 RETURNING attempt_started_at`,
      [id],
    );
    const start = (rows[0] as { attempt_started_at: Date }).attempt_started_at.toISOString();
    const res = await api.post(`/api/v1/runs/${id}/cancel`);
    expect(res.status).toBe(200);
    const recorded = [
      {
        ...running(1, 'worker-gone', start),
        status: 'cancelled',
        finishedAt: Run.parse(res.body).finishedAt,
        error: 'run cancelled while running',
      },
    ];
    expect(Run.parse(res.body).attempts).toEqual(recorded);
    await reportCancelled(id, scheduledTime, 'worker-gone');
    expect((await runOf(id)).attempts).toEqual(recorded);
  });

  it("pausing a container job records the attempt of a run whose lease expired; a live one's worker reports", async () => {
    const jobId = await newJob();
    await h.db.pool.query(`UPDATE jobs SET target = jsonb_set(target, '{type}', '"container"') WHERE id = $1`, [jobId]);
    const at = (s: number) => new Date(Math.floor(Date.now() / 1000) * 1000 - s * 1000);
    const [lost, live] = [at(90), at(80)];
    const lostId = await insertRun(h, {
      tenantId: t.tenantId,
      jobId,
      status: 'pending',
      scheduledTime: lost,
      finishedAt: null,
    });
    const liveId = await insertRun(h, {
      tenantId: t.tenantId,
      jobId,
      status: 'pending',
      scheduledTime: live,
      finishedAt: null,
    });
    await claimRuns(h.db.pool, 'worker-gone', 30_000, [lostId], [lost]);
    await claimRuns(h.db.pool, 'worker-live', 30_000, [liveId], [live]);
    await h.db.pool.query(`UPDATE runs SET lease_expires_at = now() - interval '1 second' WHERE id = $1`, [lostId]);
    expect(await cancelRunningContainerRuns(h.db.pool, t.tenantId, jobId, new Date())).toBe(2);
    const lostRun = await runOf(lostId);
    expect(lostRun.attempts).toMatchObject([
      { attempt: 1, workerId: 'worker-gone', status: 'cancelled', error: 'run cancelled while running' },
    ]);
    expect(lostRun.attempts[0]?.finishedAt).toBe(lostRun.finishedAt);
    await reportCancelled(lostId, lost, 'worker-gone');
    expect((await runOf(lostId)).attempts).toEqual(lostRun.attempts);
    // The live one is shown running until its worker reports the end.
    expect((await runOf(liveId)).attempts).toMatchObject([{ attempt: 1, workerId: 'worker-live', status: 'running' }]);
    await reportCancelled(liveId, live, 'worker-live');
    expect((await runOf(liveId)).attempts).toMatchObject([
      { attempt: 1, workerId: 'worker-live', status: 'cancelled', error: 'run cancelled while running' },
    ]);
  });

  it("shows a retry in progress from its own start, then the row its end writes; a cancel's attempt stays open until reported", async () => {
    const jobId = await newJob();
    const scheduledTime = new Date(Date.now() - 60_000);
    const id = await insertRun(h, { tenantId: t.tenantId, jobId, status: 'failed', scheduledTime, attempts: 1 });
    await h.db.pool.query(
      `UPDATE runs SET next_attempt_at = now(), finished_at = NULL, last_error = 'HTTP 503' WHERE id = $1`,
      [id],
    );
    const [claimed] = await claimRuns(h.db.pool, 'worker-2', 30_000, [id], [scheduledTime]);
    expect(claimed?.attempt).toBe(2);
    const { rows } = await h.db.pool.query<{ attempt_started_at: Date }>(
      'SELECT attempt_started_at FROM runs WHERE id = $1',
      [id],
    );
    const start = (rows[0] as { attempt_started_at: Date }).attempt_started_at.toISOString();
    expect(start).not.toBe(scheduledTime.toISOString()); // the run's startedAt is its first attempt's

    const run = await runOf(id);
    expect(run.startedAt).toBe(scheduledTime.toISOString());
    expect(run.attempts.map((a) => [a.attempt, a.status])).toEqual([
      [1, 'failed'],
      [2, 'running'],
    ]);
    expect(run.attempts[1]).toEqual(running(2, 'worker-2', start));
    // The dashboard's run page and timeline: nothing of the first attempt passes for the second's.
    const detail = await runDetail(h.deps, t.actor, id);
    expect(detail.attempts[1]).toEqual({ ...running(2, 'worker-2', start), requestHeaders: null, lagMs: null });
    const point = async () => {
      const window = { jobId, from: new Date(Date.now() - 3_600_000).toISOString(), to: new Date().toISOString() };
      const timeline = await jobTimeline(h.deps, t.actor, TimelineInput.parse(window));
      return timeline.points.find((p) => p.id === id);
    };
    expect(await point()).toMatchObject({
      status: 'running',
      attempts: 2,
      durationMs: null,
      httpStatus: null,
      error: 'HTTP 503',
    });

    const done = await completeAttempts(h.db.pool, 'worker-2', [
      {
        runId: id,
        scheduledTime,
        attempt: 2,
        runStatus: 'succeeded',
        attemptStatus: 'succeeded',
        nextAttemptAt: null,
        httpStatus: 200,
        durationMs: 7,
        error: null,
        responseSnippet: 'ok',
        // as the engine stores them: without the headers the run itself says
        requestHeaders: { 'content-type': 'application/json', 'webhook-timestamp': '1764572399', 'x-team': 'ops' },
      },
    ]);
    expect(done.map((r) => r.status)).toEqual(['succeeded']);
    // the run page puts them back
    expect((await runDetail(h.deps, t.actor, id)).attempts[1]?.requestHeaders).toEqual({
      'content-type': 'application/json',
      'webhook-timestamp': '1764572399',
      'x-team': 'ops',
      'webhook-id': id,
      'idempotency-key': id,
      'belfry-job-id': jobId,
      'belfry-scheduled-time': scheduledTime.toISOString(),
      'belfry-attempt': '2',
      'webhook-signature': '***',
    });
    const finished = await runOf(id);
    expect(finished.attempts[1]).toEqual({
      ...running(2, 'worker-2', start),
      status: 'succeeded',
      finishedAt: expect.any(String),
      httpStatus: 200,
      durationMs: 7,
      responseSnippet: 'ok',
    });
    expect(await point()).toMatchObject({ status: 'succeeded', durationMs: 7, httpStatus: 200, error: null });
    // The attempt that ended the run is held on the run row (no row of its own), and the job's
    // run list shows it as the run does.
    const own = await h.db.pool.query('SELECT attempt FROM run_attempts WHERE run_id = $1 ORDER BY attempt', [id]);
    expect(own.rows).toEqual([{ attempt: 1 }]);
    const listed = RunPage.parse((await api.get(`/api/v1/jobs/${jobId}/runs`)).body).data.find((r) => r.id === id);
    expect(listed?.attempts).toEqual(finished.attempts);
    // A 'running' row for the same attempt (left by a process of a version before attempt rows
    // were written at the end) is hidden behind the run's outcome: one attempt 2, succeeded.
    await h.db.pool.query(
      `INSERT INTO run_attempts (run_id, scheduled_time, tenant_id, job_id, attempt, worker_id, status, started_at)
       VALUES ($1, $2, $3, $4, 2, 'worker-old', 'running', $2)`,
      [id, scheduledTime, t.tenantId, jobId],
    );
    expect((await runOf(id)).attempts).toEqual(finished.attempts);
    expect((await runDetail(h.deps, t.actor, id)).attempts.map((a) => [a.attempt, a.status, a.workerId])).toEqual([
      [1, 'failed', 'worker-1'],
      [2, 'succeeded', 'worker-2'],
    ]);

    // Cancelled while it runs: shown running (no row yet) until its worker reports the end.
    const other = new Date(Date.now() - 30_000);
    const id2 = await insertRun(h, {
      tenantId: t.tenantId,
      jobId,
      status: 'pending',
      scheduledTime: other,
      finishedAt: null,
    });
    await claimRuns(h.db.pool, 'worker-3', 30_000, [id2], [other]);
    const res = await api.post(`/api/v1/runs/${id2}/cancel`);
    expect(res.status).toBe(200);
    expect(Run.parse(res.body).attempts).toMatchObject([{ attempt: 1, workerId: 'worker-3', status: 'running' }]);
    const lease = { runId: id2, scheduledTime: other, tenantId: t.tenantId, attempt: 1, worker: 'worker-3' };
    await closeCancelledAttempt(h.db.pool, lease);
    await closeCancelledAttempt(h.db.pool, lease); // a second report changes nothing
    const closed = await runOf(id2);
    expect(closed.attempts).toMatchObject([
      { attempt: 1, workerId: 'worker-3', status: 'cancelled', error: 'run cancelled while running' },
    ]);
    expect(closed.attempts[0]?.finishedAt).not.toBeNull();
  });
});
