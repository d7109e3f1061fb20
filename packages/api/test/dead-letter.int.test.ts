// Contract tests of the dead-letter queue: listing, replay by ids / all / per job, dry runs,
// batching in transactions of at most 500, the audit trail, and no double replays.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '@belfry/core';
import { DeadLetterPage } from '../src/index';
import {
  client,
  counts,
  createHarness,
  type Harness,
  insertRun,
  jobBody,
  makeTenant,
  type TestTenant,
} from './support';

let h: Harness;

beforeAll(async () => {
  h = await createHarness();
});
afterAll(() => h.close());

async function setup() {
  const t = await makeTenant(h);
  const api = client(h, t.key);
  const newJob = async () => (await api.post('/api/v1/jobs', jobBody())).body.id as string;
  return { t, api, newJob };
}

/** Many dead runs at once, finished one millisecond apart (oldest first). */
async function bulkDead(t: TestTenant, jobId: string, n: number): Promise<string[]> {
  const start = Date.now() - 3_600_000;
  const times = Array.from({ length: n }, (_, i) => new Date(start + i));
  const ids = times.map((time) => newId('run', time));
  await h.db.pool.query(
    `INSERT INTO runs (id, tenant_id, job_id, scheduled_time, status, attempt, trigger, finished_at, dead_at)
     SELECT u.id, $1, $2, u.t, 'dead', 5, 'schedule', u.t + interval '1 minute', u.t + interval '1 minute'
       FROM unnest($3::text[], $4::timestamptz[]) AS u(id, t)`,
    [t.tenantId, jobId, ids, times],
  );
  return ids;
}

describe('GET /api/v1/dead-letter', () => {
  it('lists dead runs newest death first, replayed ones too (with replayedBy), not deleted jobs, with attempts', async () => {
    const { t, api, newJob } = await setup();
    const a = await newJob();
    const b = await newJob();
    const gone = await newJob();
    const old = await insertRun(h, {
      tenantId: t.tenantId,
      jobId: a,
      status: 'dead',
      finishedAt: new Date(Date.now() - 3000),
      attempts: 2,
    });
    const mid = await insertRun(h, {
      tenantId: t.tenantId,
      jobId: b,
      status: 'dead',
      finishedAt: new Date(Date.now() - 2000),
    });
    const recent = await insertRun(h, {
      tenantId: t.tenantId,
      jobId: a,
      status: 'dead',
      finishedAt: new Date(Date.now() - 1000),
    });
    await insertRun(h, { tenantId: t.tenantId, jobId: a, status: 'succeeded' });
    await insertRun(h, { tenantId: t.tenantId, jobId: gone, status: 'dead' });
    await api.del(`/api/v1/jobs/${gone}`);

    const res = await api.get('/api/v1/dead-letter');
    expect(res.status).toBe(200);
    const page = DeadLetterPage.parse(res.body);
    expect(page.data.map((r) => r.id)).toEqual([recent, mid, old]);
    expect(page.data.map((r) => r.replayedBy)).toEqual([null, null, null]);
    expect(page.data[2]?.attempts).toHaveLength(2);
    expect(page.data.every((r) => r.status === 'dead')).toBe(true);

    const first = await api.get('/api/v1/dead-letter?limit=2');
    expect(first.body.data).toHaveLength(2);
    const second = await api.get(`/api/v1/dead-letter?limit=2&cursor=${first.body.nextCursor}`);
    expect(second.body.data.map((r: { id: string }) => r.id)).toEqual([old]);
    expect(second.body.nextCursor).toBeNull();

    expect((await api.get(`/api/v1/dead-letter?jobId=${b}`)).body.data.map((r: { id: string }) => r.id)).toEqual([mid]);
    expect((await api.get(`/api/v1/dead-letter?jobId=${gone}`)).status).toBe(404);

    // A replayed dead run is still dead, and still listed, naming its replay.
    const replay = await api.post(`/api/v1/runs/${mid}/replay`);
    expect(replay.status).toBe(201);
    const listed = DeadLetterPage.parse((await api.get('/api/v1/dead-letter')).body).data;
    expect(listed.map((r) => [r.id, r.status, r.replayedBy])).toEqual([
      [recent, 'dead', null],
      [mid, 'dead', replay.body.id],
      [old, 'dead', null],
    ]);
    // The replay is pending, not dead: it is not listed itself.
    expect(listed.some((r) => r.id === replay.body.id)).toBe(false);
  });

  it('replayedBy names the latest replay; the dead letter replays a run only once, the run endpoint every time', async () => {
    const { t, api, newJob } = await setup();
    const jobId = await newJob();
    const dead = await insertRun(h, { tenantId: t.tenantId, jobId, status: 'dead' });
    expect((await api.post('/api/v1/dead-letter/replay', { runIds: [dead] })).body).toEqual({ replayed: 1 });
    const first = await h.db.pool.query<{ id: string }>('SELECT id FROM runs WHERE replay_of = $1', [dead]);
    const entry = async () =>
      DeadLetterPage.parse((await api.get(`/api/v1/dead-letter?jobId=${jobId}`)).body).data.find((r) => r.id === dead);
    expect((await entry())?.replayedBy).toBe(first.rows[0]?.id);
    // Idempotent: asking the dead letter again (by id or all) replays nothing.
    expect((await api.post('/api/v1/dead-letter/replay', { runIds: [dead] })).body).toEqual({ replayed: 0 });
    expect((await api.post('/api/v1/dead-letter/replay', { all: true, jobId })).body).toEqual({ replayed: 0 });
    expect((await api.post('/api/v1/dead-letter/replay', { all: true, jobId, dryRun: true })).body).toEqual({
      wouldReplay: 0,
    });
    // An explicit "run it again" on the run itself makes another replay, which becomes replayedBy.
    const again = await api.post(`/api/v1/runs/${dead}/replay`);
    expect(again.status).toBe(201);
    expect(again.body.id).not.toBe(first.rows[0]?.id);
    expect((await entry())?.replayedBy).toBe(again.body.id);
    const { rows } = await h.db.pool.query('SELECT count(*)::int AS n FROM runs WHERE replay_of = $1', [dead]);
    expect(rows[0].n).toBe(2);
  });
});

describe('POST /api/v1/dead-letter/replay', () => {
  it('replays listed runs once; unknown, not-dead and already replayed ids are skipped', async () => {
    const { t, api, newJob } = await setup();
    const jobId = await newJob();
    const d1 = await insertRun(h, { tenantId: t.tenantId, jobId, status: 'dead' });
    const d2 = await insertRun(h, { tenantId: t.tenantId, jobId, status: 'dead' });
    const ok = await insertRun(h, { tenantId: t.tenantId, jobId, status: 'succeeded' });
    const ids = [d1, d2, ok, 'run_01KB3Y8J2Q7Z9V4N6M5X0C1R2T', d1];

    const dry = await api.post('/api/v1/dead-letter/replay', { runIds: ids, dryRun: true });
    expect(dry.status).toBe(200);
    expect(dry.body).toEqual({ wouldReplay: 2 });
    const before = await counts(h);

    const res = await api.post('/api/v1/dead-letter/replay', { runIds: ids });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ replayed: 2 });
    const after = await counts(h);
    expect(after.runs - before.runs).toBe(2);
    expect(after.queued - before.queued).toBe(2);
    const { rows } = await h.db.pool.query(
      `SELECT replay_of, trigger, status FROM runs WHERE replay_of = ANY($1) ORDER BY replay_of`,
      [[d1, d2]],
    );
    expect(rows).toEqual([d1, d2].sort().map((id) => ({ replay_of: id, trigger: 'replay', status: 'pending' })));
    expect((await api.post('/api/v1/dead-letter/replay', { runIds: ids })).body).toEqual({ replayed: 0 });

    const audit = await h.db.pool.query(
      `SELECT actor_type, details FROM audit_log WHERE tenant_id = $1 AND action = 'dead_letter.replayed'`,
      [t.tenantId],
    );
    expect(audit.rows).toHaveLength(1);
    expect(audit.rows[0].actor_type).toBe('api_key');
    expect(audit.rows[0].details).toMatchObject({ mode: 'runIds', count: 2 });
    expect([...audit.rows[0].details.runIds].sort()).toEqual([d1, d2].sort());
  });

  it('replays all of a tenant in transactions of at most 500, and a dry run counts without changing anything', async () => {
    const { t, api, newJob } = await setup();
    const jobA = await newJob();
    const jobB = await newJob();
    await bulkDead(t, jobA, 1100);
    await bulkDead(t, jobB, 30);

    const before = await counts(h);
    expect((await api.post('/api/v1/dead-letter/replay', { all: true, dryRun: true })).body).toEqual({
      wouldReplay: 1130,
    });
    expect((await api.post('/api/v1/dead-letter/replay', { all: true, jobId: jobB, dryRun: true })).body).toEqual({
      wouldReplay: 30,
    });
    expect(await counts(h)).toEqual(before);

    expect((await api.post('/api/v1/dead-letter/replay', { all: true, jobId: jobB })).body).toEqual({ replayed: 30 });
    const res = await api.post('/api/v1/dead-letter/replay', { all: true });
    expect(res.body).toEqual({ replayed: 1100 });
    const after = await counts(h);
    expect(after.runs - before.runs).toBe(1130);
    expect(after.queued - before.queued).toBe(1130);
    const audit = await h.db.pool.query<{ n: number; target_id: string | null }>(
      `SELECT (details->>'count')::int AS n, target_id FROM audit_log
        WHERE tenant_id = $1 AND action = 'dead_letter.replayed' ORDER BY id`,
      [t.tenantId],
    );
    expect(audit.rows).toEqual([
      { n: 30, target_id: jobB },
      { n: 500, target_id: null },
      { n: 500, target_id: null },
      { n: 100, target_id: null },
    ]);
    // Still listed (still dead), each with its replay; replaying everything again replays nothing.
    const listed = DeadLetterPage.parse((await api.get('/api/v1/dead-letter?limit=500')).body).data;
    expect(listed).toHaveLength(500);
    expect(listed.every((r) => r.status === 'dead' && r.replayedBy !== null)).toBe(true);
    expect((await api.post('/api/v1/dead-letter/replay', { all: true })).body).toEqual({ replayed: 0 });
  });

  it('concurrent replays of the whole queue replay each run once', async () => {
    const { t, api, newJob } = await setup();
    const jobId = await newJob();
    await bulkDead(t, jobId, 700);
    const results = await Promise.all([1, 2, 3].map(() => api.post('/api/v1/dead-letter/replay', { all: true })));
    expect(results.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(results.reduce((sum, r) => sum + r.body.replayed, 0)).toBe(700);
    const { rows } = await h.db.pool.query(
      `SELECT count(*)::int AS n, count(DISTINCT replay_of)::int AS d FROM runs WHERE tenant_id = $1 AND trigger = 'replay'`,
      [t.tenantId],
    );
    expect(rows[0]).toEqual({ n: 700, d: 700 });
  });

  it('validates the body', async () => {
    const { api, t } = await setup();
    const before = await counts(h);
    const bad: unknown[] = [
      {},
      { runIds: [] },
      { all: false },
      { runIds: ['run_01KB3Y8J2Q7Z9V4N6M5X0C1R2T'], all: true },
      { jobId: 'job_01KB3Y8J2Q7Z9V4N6M5X0C1R2T' },
      { runIds: ['nope'] },
      { runIds: Array(501).fill('run_01KB3Y8J2Q7Z9V4N6M5X0C1R2T') },
      { all: true, dryRun: 'yes' },
      { all: true, extra: 1 },
    ];
    for (const body of bad)
      expect((await api.post('/api/v1/dead-letter/replay', body)).status, JSON.stringify(body).slice(0, 80)).toBe(400);
    const missing = await api.post('/api/v1/dead-letter/replay', {
      all: true,
      jobId: 'job_01KB3Y8J2Q7Z9V4N6M5X0C1R2T',
    });
    expect(missing.status).toBe(404);
    expect(await counts(h)).toEqual(before);
    expect(t).toBeDefined();
  });
});
