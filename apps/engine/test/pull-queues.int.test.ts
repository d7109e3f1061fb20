// Pull queues end to end over real HTTP (test/rest-server.ts) on real PostgreSQL and pg-boss:
// a tenant's worker claims runs of `pull` targets, heartbeats and completes them with a lease
// token; stale tokens get 409; an expired lease is a failed attempt the engine's reaper retries
// (same run id, backoff) and then dead-letters; a long-poll wakes when a run comes due; scopes
// and tenants are enforced; a one-off pull job completes once its run has finished.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type QueueClient, queuedMessages } from '@belfry/db';
import { expireLeases } from '../../../test/fixtures';
import { startTestServer, type TestServer } from '../../../test/rest-server';
import { startEngineNode } from '../../../test/engine-nodes';
import { createLogger } from '../src/logger';
import { Reaper } from '../src/maintenance/reaper';

const log = createLogger('silent', {});

// biome-ignore lint/suspicious/noExplicitAny: response bodies are asserted field by field
type Body = any;

describe('pull queues over REST', () => {
  let server: TestServer;
  let reaper: Reaper;
  let key: string;
  let tenantId: string;

  beforeAll(async () => {
    server = await startTestServer();
    // The top of the jitter range: every backoff is the full delay, so the test can predict it.
    reaper = new Reaper(
      server.db.pool,
      server.deps.queue as QueueClient,
      { intervalMs: 60_000, batchSize: 100, random: () => 1 },
      log,
    );
    ({ apiKey: key, tenantId } = await server.createTenant('pull'));
  });
  afterAll(async () => {
    await server?.close();
  });

  const call = async (method: string, path: string, body?: unknown, as = key) => {
    const res = await fetch(`${server.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${as}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return {
      status: res.status,
      type: res.headers.get('content-type'),
      body: (text ? JSON.parse(text) : null) as Body,
    };
  };

  let jobCounter = 0;
  const pullJob = async (queue: string, extra: Record<string, unknown> = {}, as = key) => {
    const res = await call(
      'POST',
      '/api/v1/jobs',
      {
        name: `pull-${++jobCounter}`,
        schedule: { type: 'cron', expression: '0 0 1 1 *' },
        target: { type: 'pull', queue },
        payload: { report: jobCounter },
        ...extra,
      },
      as,
    );
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.target).toEqual({ type: 'pull', queue });
    return res.body as { id: string };
  };
  const trigger = async (jobId: string, as = key) => {
    const res = await call('POST', `/api/v1/jobs/${jobId}/trigger`, undefined, as);
    expect(res.status).toBe(201);
    return res.body as { id: string };
  };
  const claim = (queue: string, body: Record<string, unknown> = {}, as = key) =>
    call('POST', `/api/v1/queues/${queue}/claim`, body, as);
  const keyWith = async (scopes: string[]) => {
    const { createApiKey } = await import('@belfry/api');
    const created = await createApiKey(server.deps, { type: 'system', id: null, tenantId }, {
      name: scopes.join(' '),
      scopes,
    } as never);
    return (created as { key: string }).key;
  };

  it('claims a due run with its payload and lease, heartbeats, completes it with output', async () => {
    const job = await pullJob('reports', { timeoutSeconds: 600 });
    const run = await trigger(job.id);
    const claimed = await claim('reports', { max: 10, leaseSeconds: 30, worker: 'box-1:4711' });
    expect(claimed.status).toBe(200);
    expect(claimed.body.data).toHaveLength(1);
    const [item] = claimed.body.data;
    expect(item.run).toMatchObject({ id: run.id, jobId: job.id, status: 'running', attempt: 1, trigger: 'manual' });
    expect(item.run.attempts).toEqual([
      expect.objectContaining({ attempt: 1, workerId: 'box-1:4711', status: 'running' }),
    ]);
    expect(item.payload).toEqual({ report: jobCounter });
    expect(typeof item.leaseToken).toBe('string');
    expect(Date.parse(item.leaseExpiresAt)).toBeGreaterThan(Date.now());

    // Nothing else is due.
    expect((await claim('reports')).body).toEqual({ data: [] });
    // The attempt in progress lives on the run row (its row is written when it ends), and the
    // run reads with it as the claim answered.
    const attemptRows = (id: string) =>
      server.db.pool
        .query('SELECT attempt, status FROM run_attempt_history WHERE run_id = $1', [id])
        .then((r) => r.rows);
    expect(await attemptRows(run.id)).toEqual([]);
    expect((await call('GET', `/api/v1/runs/${run.id}`)).body.attempts).toEqual(item.run.attempts);

    const beat = await call('POST', `/api/v1/runs/${run.id}/heartbeat`, {
      leaseToken: item.leaseToken,
      leaseSeconds: 120,
    });
    expect(beat.status).toBe(200);
    expect(Date.parse(beat.body.leaseExpiresAt)).toBeGreaterThan(Date.parse(item.leaseExpiresAt));
    // Never past timeoutSeconds from the claim.
    const capped = await call('POST', `/api/v1/runs/${run.id}/heartbeat`, {
      leaseToken: item.leaseToken,
      leaseSeconds: 900,
    });
    expect(Date.parse(capped.body.leaseExpiresAt)).toBeLessThanOrEqual(Date.parse(item.run.startedAt) + 600_000);

    const done = await call('POST', `/api/v1/runs/${run.id}/complete`, {
      leaseToken: item.leaseToken,
      status: 'succeeded',
      output: 'report written\n',
    });
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ id: run.id, status: 'succeeded', attempt: 1 });
    expect(done.body.attempts).toEqual([
      expect.objectContaining({
        attempt: 1,
        status: 'succeeded',
        workerId: 'box-1:4711',
        responseSnippet: 'report written\n',
      }),
    ]);
    const read = await call('GET', `/api/v1/runs/${run.id}`);
    expect(read.body.attempts[0].workerId).toBe('box-1:4711');
    // The completion answers the run as it now reads.
    expect(done.body).toEqual(read.body);
    expect(await attemptRows(run.id)).toEqual([{ attempt: 1, status: 'succeeded' }]);

    // The queue list shows it, with the worker.
    const queues = await call('GET', '/api/v1/queues');
    expect(queues.status).toBe(200);
    const reports = queues.body.data.find((q: Body) => q.name === 'reports');
    expect(reports).toMatchObject({ name: 'reports', waiting: 0, claimed: 0 });
    expect(reports.lastClaimAt).not.toBeNull();
    expect(reports.workers.map((w: Body) => w.name)).toContain('box-1:4711');
  });

  it('answers 409 problem+json to a stale, forged or foreign lease token', async () => {
    const job = await pullJob('stale');
    const first = await trigger(job.id);
    const second = await trigger(job.id);
    const { body } = await claim('stale', { max: 2 });
    const byId = new Map<string, Body>(body.data.map((c: Body) => [c.run.id, c]));
    const a = byId.get(first.id);
    const b = byId.get(second.id);
    expect(a && b).toBeTruthy();

    // Another run's token does not hold this run; nor does garbage.
    for (const leaseToken of [b.leaseToken, 'not-a-token', `${a.leaseToken.split('.')[0]}.AAAA`]) {
      const res = await call('POST', `/api/v1/runs/${first.id}/complete`, { leaseToken, status: 'succeeded' });
      expect(res.status, leaseToken).toBe(409);
      expect(res.type).toContain('application/problem+json');
    }
    expect(
      (await call('POST', `/api/v1/runs/${first.id}/complete`, { leaseToken: a.leaseToken, status: 'succeeded' }))
        .status,
    ).toBe(200);
    // Once completed, the token is stale for both.
    const again = await call('POST', `/api/v1/runs/${first.id}/complete`, {
      leaseToken: a.leaseToken,
      status: 'failed',
    });
    expect(again.status).toBe(409);
    expect(again.type).toContain('application/problem+json');
    expect(again.body).toMatchObject({ status: 409, title: 'Conflict' });
    expect((await call('POST', `/api/v1/runs/${first.id}/heartbeat`, { leaseToken: a.leaseToken })).status).toBe(409);
    expect((await call('GET', `/api/v1/runs/${first.id}`)).body.status).toBe('succeeded');
  });

  it('retries a failed completion with backoff, and a non-retryable failure goes dead at once', async () => {
    const job = await pullJob('failing', { retry: { maxAttempts: 3, initialDelaySeconds: 60, maxDelaySeconds: 600 } });
    const run = await trigger(job.id);
    const [c] = (await claim('failing')).body.data;
    const failed = await call('POST', `/api/v1/runs/${run.id}/complete`, {
      leaseToken: c.leaseToken,
      status: 'failed',
      error: 'exit code 3',
      output: 'boom',
      // The backoff is full jitter (anywhere in [0, 60 s]); the worker's retryAfterSeconds is its floor.
      retryAfterSeconds: 30,
    });
    expect(failed.body).toMatchObject({ status: 'failed', attempt: 1 });
    expect(failed.body.attempts[0]).toMatchObject({ status: 'failed', error: 'exit code 3', responseSnippet: 'boom' });
    // Its retry waits in the queue for its backoff; nothing is handed out before then.
    const [message] = await queuedMessages(server.db.pool, { runIds: [run.id], waitingOnly: true });
    expect(message?.startAfter.getTime()).toBeGreaterThan(Date.now() + 20_000);
    expect((await claim('failing')).body.data).toEqual([]);

    const other = await trigger(job.id);
    const [d] = (await claim('failing')).body.data;
    expect(d.run.id).toBe(other.id);
    const dead = await call('POST', `/api/v1/runs/${other.id}/complete`, {
      leaseToken: d.leaseToken,
      status: 'failed',
      retryable: false,
      error: 'bad input',
    });
    expect(dead.body).toMatchObject({ status: 'dead', attempt: 1 });
  });

  it('treats an expired lease as a failed attempt: retried with the same run id after backoff, then dead', async () => {
    const job = await pullJob('lease', { retry: { maxAttempts: 2, initialDelaySeconds: 1, maxDelaySeconds: 1 } });
    const run = await trigger(job.id);
    const [first] = (await claim('lease', { leaseSeconds: 5, worker: 'dies-1' })).body.data;
    // The worker dies: its lease runs out without a heartbeat.
    await expireLeases(server.db.pool, [run.id]);
    expect((await call('POST', `/api/v1/runs/${run.id}/heartbeat`, { leaseToken: first.leaseToken })).status).toBe(409);
    expect(await reaper.reapOnce()).toBe(1);
    const waiting = await call('GET', `/api/v1/runs/${run.id}`);
    expect(waiting.body).toMatchObject({ status: 'failed', attempt: 1 });
    expect(waiting.body.attempts[0]).toMatchObject({ status: 'failed', workerId: 'dies-1' });
    expect(waiting.body.attempts[0].error).toMatch(/lease expired/);

    // The retry comes due after its backoff; a long-poll is woken for it.
    const [second] = (await claim('lease', { waitSeconds: 20, worker: 'dies-2' })).body.data;
    expect(second.run).toMatchObject({ id: run.id, attempt: 2, status: 'running' });
    // The first lease's token is stale now.
    expect(
      (await call('POST', `/api/v1/runs/${run.id}/complete`, { leaseToken: first.leaseToken, status: 'succeeded' }))
        .status,
    ).toBe(409);

    await expireLeases(server.db.pool, [run.id]);
    expect(await reaper.reapOnce()).toBe(1);
    const dead = await call('GET', `/api/v1/runs/${run.id}`);
    expect(dead.body).toMatchObject({ status: 'dead', attempt: 2 });
    expect(dead.body.attempts.map((a: Body) => [a.workerId, a.status])).toEqual([
      ['dies-1', 'failed'],
      ['dies-2', 'failed'],
    ]);
    const letters = await call('GET', '/api/v1/dead-letter');
    expect(letters.body.data.map((r: Body) => r.id)).toContain(run.id);
  });

  it('answers a completion with the run as it reads, earlier attempts included', async () => {
    const job = await pullJob('history', { retry: { maxAttempts: 3, initialDelaySeconds: 1, maxDelaySeconds: 1 } });
    const run = await trigger(job.id);
    const [first] = (await claim('history', { worker: 'w-1' })).body.data;
    const failed = await call('POST', `/api/v1/runs/${run.id}/complete`, {
      leaseToken: first.leaseToken,
      status: 'failed',
      error: 'try again',
    });
    expect(failed.status).toBe(200);
    expect(failed.body).toEqual((await call('GET', `/api/v1/runs/${run.id}`)).body);

    const [second] = (await claim('history', { waitSeconds: 20, worker: 'w-2' })).body.data;
    expect(second.run).toMatchObject({ id: run.id, attempt: 2 });
    // The claim shows the second attempt from its own start (not the run's, the first attempt's),
    // as the run reads.
    const reading = (await call('GET', `/api/v1/runs/${run.id}`)).body;
    expect(second.run.attempts).toEqual([reading.attempts[1]]);
    expect(second.run.attempts[0].startedAt).not.toBe(second.run.startedAt);
    const done = await call('POST', `/api/v1/runs/${run.id}/complete`, {
      leaseToken: second.leaseToken,
      status: 'succeeded',
      output: 'fine now',
    });
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ status: 'succeeded', attempt: 2 });
    expect(done.body.attempts.map((a: Body) => [a.attempt, a.workerId, a.status, a.error, a.responseSnippet])).toEqual([
      [1, 'w-1', 'failed', 'try again', null],
      [2, 'w-2', 'succeeded', null, 'fine now'],
    ]);
    expect(done.body.attempts[1].durationMs).toBeGreaterThanOrEqual(0);
    expect(done.body).toEqual((await call('GET', `/api/v1/runs/${run.id}`)).body);
  });

  it('completes a claim’s runs sent together, each fenced and answered on its own', async () => {
    // Successes that arrive together are written in one transaction (pull-completions.ts).
    const jobs = await Promise.all(Array.from({ length: 6 }, () => pullJob('together')));
    const runs = await Promise.all(jobs.map((j) => trigger(j.id)));
    const claimed = (await claim('together', { max: 10, worker: 'w-t' })).body.data as Body[];
    expect(claimed.map((c) => c.run.id).sort()).toEqual(runs.map((r) => r.id).sort());
    const [first, second, ...rest] = claimed;
    // The last run's job is in trouble: its success in the batch resolves the incident.
    const troubled = rest[rest.length - 1];
    await server.db.pool.query(
      `INSERT INTO incidents (id, tenant_id, job_id, kind) VALUES ('inc_together', $1, $2, 'failing')`,
      [tenantId, troubled.run.jobId],
    );
    const complete = (c: Body, token = c.leaseToken) =>
      call('POST', `/api/v1/runs/${c.run.id}/complete`, { leaseToken: token, status: 'succeeded', output: c.run.id });
    const answers = await Promise.all([
      complete(first),
      complete(first), // the same completion twice at once: one wins, the other finds it done
      complete(second, claimed[2].leaseToken), // another run's token
      ...rest.map((c) => complete(c)),
    ]);
    expect(
      answers
        .slice(0, 2)
        .map((a) => a.status)
        .sort(),
    ).toEqual([200, 409]);
    expect(answers[2].status).toBe(409);
    for (const [i, c] of [first, ...rest].entries()) {
      const answer = i === 0 ? (answers[0].status === 200 ? answers[0] : answers[1]) : answers[i + 2];
      expect(answer?.status).toBe(200);
      expect(answer?.body).toMatchObject({ id: c.run.id, status: 'succeeded' });
      expect(answer?.body.attempts).toEqual([
        expect.objectContaining({ attempt: 1, workerId: 'w-t', status: 'succeeded', responseSnippet: c.run.id }),
      ]);
      expect(answer?.body).toEqual((await call('GET', `/api/v1/runs/${c.run.id}`)).body);
    }
    const { rows } = await server.db.pool.query(
      `SELECT resolved_run_id FROM incidents WHERE id = 'inc_together' AND resolved_at IS NOT NULL`,
    );
    expect(rows).toEqual([{ resolved_run_id: troubled.run.id }]);
    // The run whose completion carried a foreign token is still held, and completes with its own.
    expect((await complete(second)).status).toBe(200);
  });

  it('wakes a long-polling claim when a run is queued', async () => {
    const job = await pullJob('wake');
    const waiting = claim('wake', { waitSeconds: 25 });
    // The claim is waiting (no run exists yet) when the run is triggered.
    await new Promise((r) => setTimeout(r, 300));
    const run = await trigger(job.id);
    const { body } = await waiting;
    expect(body.data.map((c: Body) => c.run.id)).toEqual([run.id]);
  });

  it('stops a paused job’s waiting runs and fences a cancelled run’s lease', async () => {
    const job = await pullJob('pause');
    const pending = await trigger(job.id);
    expect((await call('POST', `/api/v1/jobs/${job.id}/pause`)).status).toBe(200);
    expect((await claim('pause')).body.data).toEqual([]);
    expect((await call('GET', `/api/v1/runs/${pending.id}`)).body.status).toBe('cancelled');

    const running = await trigger(job.id);
    const [c] = (await claim('pause', { worker: 'w-cancel' })).body.data;
    expect((await call('POST', `/api/v1/runs/${running.id}/cancel`)).status).toBe(200);
    expect((await call('POST', `/api/v1/runs/${running.id}/heartbeat`, { leaseToken: c.leaseToken })).status).toBe(409);
    const late = await call('POST', `/api/v1/runs/${running.id}/complete`, {
      leaseToken: c.leaseToken,
      status: 'succeeded',
    });
    expect(late.status).toBe(409);
    const read = await call('GET', `/api/v1/runs/${running.id}`);
    expect(read.body.status).toBe('cancelled');
    expect(read.body.attempts[0]).toMatchObject({ workerId: 'w-cancel', status: 'cancelled' });
  });

  it('lets a queues:consume key claim, heartbeat and complete, but not manage jobs', async () => {
    const consumer = await keyWith(['queues:consume']);
    const manager = await keyWith(['jobs:write', 'runs:write']);
    const job = await pullJob('scoped');
    const run = await trigger(job.id);
    expect((await claim('scoped', {}, manager)).status).toBe(403);
    const [c] = (await claim('scoped', {}, consumer)).body.data;
    expect(c.run.id).toBe(run.id);
    expect(
      (await call('POST', `/api/v1/runs/${run.id}/heartbeat`, { leaseToken: c.leaseToken }, consumer)).status,
    ).toBe(200);
    expect(
      (
        await call(
          'POST',
          `/api/v1/runs/${run.id}/complete`,
          { leaseToken: c.leaseToken, status: 'succeeded' },
          consumer,
        )
      ).status,
    ).toBe(200);
    for (const [method, path] of [
      ['GET', '/api/v1/jobs'],
      ['POST', '/api/v1/jobs'],
      ['POST', `/api/v1/jobs/${job.id}/trigger`],
      ['POST', `/api/v1/jobs/${job.id}/pause`],
      ['DELETE', `/api/v1/jobs/${job.id}`],
      ['POST', `/api/v1/runs/${run.id}/cancel`],
    ] as const) {
      const res = await call(method, path, method === 'POST' && path === '/api/v1/jobs' ? {} : undefined, consumer);
      expect(res.status, `${method} ${path}`).toBe(403);
    }
  });

  it('keeps tenants apart: another tenant’s key neither claims nor touches these runs', async () => {
    const other = await server.createTenant('other');
    const job = await pullJob('shared-name');
    const run = await trigger(job.id);
    expect((await claim('shared-name', {}, other.apiKey)).body.data).toEqual([]);
    const [c] = (await claim('shared-name')).body.data;
    expect(c.run.id).toBe(run.id);
    const done = await call(
      'POST',
      `/api/v1/runs/${run.id}/complete`,
      { leaseToken: c.leaseToken, status: 'succeeded' },
      other.apiKey,
    );
    expect(done.status).toBe(404);
    const hb = await call('POST', `/api/v1/runs/${run.id}/heartbeat`, { leaseToken: c.leaseToken }, other.apiKey);
    expect(hb.status).toBe(404);
    // The other tenant sees only its own (empty) queue of that name: its own claim, nothing of ours.
    expect((await call('GET', '/api/v1/queues', undefined, other.apiKey)).body.data).toEqual([
      expect.objectContaining({ name: 'shared-name', waiting: 0, claimed: 0, lastClaimAt: null }),
    ]);
    expect((await call('GET', '/api/v1/queues')).body.data).toContainEqual(
      expect.objectContaining({ name: 'shared-name', claimed: 1 }),
    );
  });

  it('refuses bad queue names and claim bodies with 400 problem+json', async () => {
    for (const [queue, body] of [
      ['has%20space', {}],
      ['ok', { max: 101 }],
      ['ok', { leaseSeconds: 1 }],
      ['ok', { waitSeconds: 31 }],
      ['ok', { unknown: true }],
    ] as const) {
      const res = await claim(queue, body);
      expect(res.status, `${queue} ${JSON.stringify(body)}`).toBe(400);
      expect(res.type).toContain('application/problem+json');
    }
    const job = await pullJob('big');
    const run = await trigger(job.id);
    const [c] = (await claim('big')).body.data;
    const tooBig = await call('POST', `/api/v1/runs/${run.id}/complete`, {
      leaseToken: c.leaseToken,
      status: 'succeeded',
      output: 'x'.repeat(4097),
    });
    expect(tooBig.status).toBe(400);
    expect(tooBig.body.errors).toEqual([expect.objectContaining({ path: 'output' })]);
  });

  it('completes a one-off pull job only after its run has finished', async () => {
    const runAt = new Date(Math.ceil((Date.now() + 3_000) / 1000) * 1000);
    const job = await pullJob('once', { schedule: { type: 'once', runAt: runAt.toISOString() } });
    const node = await startEngineNode({ databaseUrl: server.db.url, nodeId: 'pull-scheduler', roles: 'scheduler' });
    try {
      // Long-polls until the scheduler has queued the occurrence and it has come due.
      let claimed: Body[] = [];
      while (!claimed.length) claimed = (await claim('once', { waitSeconds: 30 })).body.data;
      const [c] = claimed;
      expect(c.run).toMatchObject({ jobId: job.id, trigger: 'schedule', scheduledTime: runAt.toISOString() });
      expect(Date.parse(c.run.startedAt)).toBeGreaterThanOrEqual(runAt.getTime());
      expect((await call('GET', `/api/v1/jobs/${job.id}`)).body.status).toBe('active');
      await call('POST', `/api/v1/runs/${c.run.id}/complete`, { leaseToken: c.leaseToken, status: 'succeeded' });
      expect((await call('GET', `/api/v1/jobs/${job.id}`)).body.status).toBe('completed');
    } finally {
      await node.stop();
    }
  });
});
