// The dashboard's tRPC API against real PostgreSQL: sessions and tenant choice checked
// against memberships on every call, roles, member and invitation rules, the jobs table's
// activity columns, the timeline, dead-letter filters and discard, the cluster view, and
// the error shape forms rely on (field errors with the REST API's paths).
import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import { advanceSchedule } from '@belfry/db';
import { setRunStatus } from '../../../../test/fixtures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness, insertRun, jobBody } from '../../test/support';
import { createDashboardContext } from './context';
import { createCallerFactory } from './init';
import { appRouter } from './router';

let h: Harness;
const createCaller = createCallerFactory(appRouter);
let counter = 0;

beforeAll(async () => {
  h = await createHarness();
});
afterAll(() => h.close());

/** A caller for `userId` (null: signed out) acting in `tenantId` (what the cookie would say). */
function as(userId: string | null, tenantId: string | null = null, picked: string[] = []) {
  return createCaller(
    createDashboardContext({
      deps: h.deps,
      userId,
      requestedTenantId: tenantId,
      setActiveTenant: (t) => picked.push(t),
      clientKey: `test-${++counter}`,
    }),
  );
}

async function signUp(workspaceName = `ws ${++counter}`) {
  const email = `user${++counter}-${Date.now()}@example.com`;
  const anon = as(null);
  await anon.account.signUp({ email, password: 'correct horse battery', workspaceName });
  const { rows } = await h.db.pool.query<{ id: string; tenant_id: string }>(
    'SELECT u.id, m.tenant_id FROM users u JOIN memberships m ON m.user_id = u.id WHERE u.email = $1',
    [email],
  );
  const row = rows[0] as { id: string; tenant_id: string };
  return { email, userId: row.id, tenantId: row.tenant_id, api: as(row.id, row.tenant_id) };
}

async function addMember(tenantId: string, role: 'admin' | 'member' | 'viewer') {
  const other = await signUp();
  const owner = await firstOwner(tenantId);
  const { token } = await as(owner, tenantId).members.invite({ email: other.email, role });
  await other.api.account.acceptInvitation({ token });
  return { ...other, api: as(other.userId, tenantId) };
}

async function firstOwner(tenantId: string): Promise<string> {
  const { rows } = await h.db.pool.query<{ user_id: string }>(
    `SELECT user_id FROM memberships WHERE tenant_id = $1 AND role = 'owner' ORDER BY created_at LIMIT 1`,
    [tenantId],
  );
  return (rows[0] as { user_id: string }).user_id;
}

describe('sessions and tenants', () => {
  it('needs a signed-in user who still exists', async () => {
    await expect(as(null).jobs.list({})).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
    await expect(as('usr_01KB3Y8J2Q7Z9V4N6M5X0C1R2T').account.me()).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
  });

  it('acts in the requested tenant only when the user is a member of it', async () => {
    const a = await signUp('alpha');
    const b = await signUp('beta');
    const job = await b.api.jobs.create(jobBody() as never);
    // a asks for b's tenant: falls back to a's own, so b's job is simply not there.
    const picked: string[] = [];
    const confused = as(a.userId, b.tenantId, picked);
    expect((await confused.account.me()).active?.tenantId).toBe(a.tenantId);
    await expect(confused.jobs.get({ id: job.id })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(confused.account.switchTenant({ tenantId: b.tenantId })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(picked).toEqual([]);
  });

  it('switches between workspaces the user belongs to, and creates new ones', async () => {
    const a = await signUp('first');
    const picked: string[] = [];
    const created = await as(a.userId, a.tenantId, picked).account.createWorkspace({ name: 'second' });
    expect(picked).toEqual([created.tenantId]);
    const me = await as(a.userId, created.tenantId).account.me();
    expect(me.memberships.map((m) => m.tenantName).sort()).toEqual(['first', 'second']);
    expect(me.active).toMatchObject({ tenantId: created.tenantId, role: 'owner' });
    const switched: string[] = [];
    await as(a.userId, a.tenantId, switched).account.switchTenant({ tenantId: created.tenantId });
    expect(switched).toEqual([created.tenantId]);
  });

  it('refuses a second account for the same email, beside the email field', async () => {
    const a = await signUp();
    await expect(
      as(null).account.signUp({ email: a.email.toUpperCase(), password: 'correct horse battery', workspaceName: 'x' }),
    ).rejects.toMatchObject({ code: 'CONFLICT', cause: { errors: [{ path: 'email' }] } });
  });
});

describe('roles', () => {
  it('viewers read, members manage jobs, admins manage keys and members', async () => {
    const owner = await signUp();
    const viewer = await addMember(owner.tenantId, 'viewer');
    const member = await addMember(owner.tenantId, 'member');
    const admin = await addMember(owner.tenantId, 'admin');

    await expect(viewer.api.jobs.create(jobBody() as never)).rejects.toMatchObject({ code: 'FORBIDDEN' });
    const job = await member.api.jobs.create(jobBody() as never);
    expect((await viewer.api.jobs.list({})).data.map((j) => j.id)).toEqual([job.id]);
    await expect(viewer.api.jobs.trigger({ id: job.id })).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await member.api.jobs.trigger({ id: job.id });

    await expect(member.api.apiKeys.list()).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(member.api.signingSecret.get()).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(member.api.members.invite({ email: 'x@example.com', role: 'viewer' })).rejects.toMatchObject({
      code: 'FORBIDDEN',
    });
    const key = await admin.api.apiKeys.create({ name: 'ci', scopes: ['jobs:read'] });
    expect(key.key).toMatch(/^bfy_/);
    expect((await admin.api.signingSecret.get()).secret).toMatch(/^whsec_/);
  });

  it('protects owners: only owners change owners, and the last owner stays', async () => {
    const owner = await signUp();
    const admin = await addMember(owner.tenantId, 'admin');
    await expect(admin.api.members.changeRole({ userId: owner.userId, role: 'member' })).rejects.toMatchObject({
      code: 'FORBIDDEN',
    });
    await expect(admin.api.members.changeRole({ userId: admin.userId, role: 'owner' })).rejects.toMatchObject({
      code: 'FORBIDDEN',
    });
    await expect(owner.api.members.changeRole({ userId: owner.userId, role: 'admin' })).rejects.toMatchObject({
      code: 'CONFLICT',
    });
    await expect(owner.api.members.remove({ userId: owner.userId })).rejects.toMatchObject({ code: 'CONFLICT' });

    await owner.api.members.changeRole({ userId: admin.userId, role: 'owner' });
    await owner.api.members.changeRole({ userId: owner.userId, role: 'viewer' });
    const members = await admin.api.members.list();
    expect(members.find((m) => m.userId === owner.userId)?.role).toBe('viewer');
    // A removed member loses access at once, whatever their cookie says.
    await admin.api.members.remove({ userId: owner.userId });
    const me = await as(owner.userId, owner.tenantId).account.me();
    expect(me.memberships).toEqual([]);
    await expect(as(owner.userId, owner.tenantId).jobs.list({})).rejects.toMatchObject({ code: 'PRECONDITION_FAILED' });
  });

  it('revokes the API keys a member created when they are removed, and only theirs', async () => {
    const owner = await signUp();
    const admin = await addMember(owner.tenantId, 'admin');
    const theirs = await admin.api.apiKeys.create({ name: 'deploy bot', scopes: ['jobs:read'] });
    const second = await admin.api.apiKeys.create({ name: 'ci', scopes: ['jobs:read'] });
    const ours = await owner.api.apiKeys.create({ name: 'owner key', scopes: ['jobs:read'] });
    const get = (key: string) =>
      h.handle(new Request('http://localhost/api/v1/jobs', { headers: { authorization: `Bearer ${key}` } }));
    expect((await get(theirs.key)).status).toBe(200);
    // The list says how many keys go with them, before anyone removes them.
    const listed = await owner.api.members.list();
    expect(listed.find((m) => m.userId === admin.userId)?.activeApiKeys).toBe(2);
    expect(listed.find((m) => m.userId === owner.userId)?.activeApiKeys).toBe(1);

    expect(await owner.api.members.remove({ userId: admin.userId })).toEqual({
      userId: admin.userId,
      revokedApiKeys: 2,
    });
    expect((await get(theirs.key)).status).toBe(401);
    expect((await get(second.key)).status).toBe(401);
    expect((await get(ours.key)).status).toBe(200);
    const keys = await owner.api.apiKeys.list();
    expect(
      keys
        .filter((k) => k.revokedAt !== null)
        .map((k) => k.name)
        .sort(),
    ).toEqual(['ci', 'deploy bot']);
  });
});

describe('invitations', () => {
  it('work once, for the invited address only', async () => {
    const owner = await signUp();
    const invitee = await signUp();
    const stranger = await signUp();
    const { token, invitation } = await owner.api.members.invite({ email: invitee.email, role: 'member' });
    expect(invitation).toMatchObject({ email: invitee.email, role: 'member', expired: false });
    expect(await as(null).account.invitation({ token })).toMatchObject({ state: 'pending', hasAccount: true });

    await expect(stranger.api.account.acceptInvitation({ token })).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await invitee.api.account.acceptInvitation({ token });
    await expect(invitee.api.account.acceptInvitation({ token })).rejects.toMatchObject({ code: 'CONFLICT' });
    expect((await as(invitee.userId, owner.tenantId).account.me()).active).toMatchObject({
      tenantId: owner.tenantId,
      role: 'member',
    });
    expect(await owner.api.members.invitations()).toEqual([]);
  });

  it('let a new person create their account and join in one step', async () => {
    const owner = await signUp();
    const email = `new${Date.now()}@example.com`;
    const { token } = await owner.api.members.invite({ email, role: 'viewer' });
    const joined = await as(null).account.signUpWithInvitation({ token, password: 'another long password' });
    expect(joined.email).toBe(email);
    const members = await owner.api.members.list();
    expect(members.find((m) => m.email === email)?.role).toBe('viewer');
  });
});

describe('jobs table', () => {
  it('counts a one-off whose run is open as active, stored completed as the scheduler leaves it', async () => {
    const owner = await signUp();
    const runAt = new Date(Date.now() - 5_000);
    const job = await owner.api.jobs.create(
      jobBody({ name: 'in flight', schedule: { type: 'once', runAt: runAt.toISOString() } }) as never,
    );
    const run = await insertRun(h, {
      tenantId: owner.tenantId,
      jobId: job.id,
      status: 'pending',
      scheduledTime: runAt,
      finishedAt: null,
    });
    // The scheduler's materializing update: next occurrence cleared, stored completed.
    await advanceSchedule(h.db.pool, [], [job.id]);
    expect((await h.db.pool.query('SELECT status FROM jobs WHERE id = $1', [job.id])).rows[0]?.status).toBe(
      'completed',
    );
    const inFlight = await owner.api.jobs.list({ limit: 10 });
    expect(inFlight.counts).toEqual({ all: 1, active: 1, paused: 0, completed: 0 });
    expect(inFlight.data.map((j) => j.status)).toEqual(['active']);
    expect((await owner.api.jobs.list({ limit: 10, status: 'active' })).data.map((j) => j.id)).toEqual([job.id]);
    expect(await setRunStatus(h.db.pool, run, 'succeeded')).toBe(1);
    const done = await owner.api.jobs.list({ limit: 10 });
    expect(done.counts).toEqual({ all: 1, active: 0, paused: 0, completed: 1 });
    expect(done.data.map((j) => j.status)).toEqual(['completed']);
    expect((await owner.api.jobs.list({ limit: 10, status: 'active' })).data).toEqual([]);
  });

  it('pages jobs with their last 20 outcomes, searches names anywhere, counts statuses', async () => {
    const owner = await signUp();
    const api = owner.api;
    const a = await api.jobs.create(jobBody({ name: 'Nightly Invoices' }) as never);
    const b = await api.jobs.create(jobBody({ name: 'cleanup' }) as never);
    await api.jobs.pause({ id: b.id });
    const now = Date.now();
    const statuses = ['succeeded', 'dead', 'succeeded', 'failed', 'skipped'];
    for (let i = 0; i < 25; i++) {
      await insertRun(h, {
        tenantId: owner.tenantId,
        jobId: a.id,
        status: statuses[i % statuses.length] as string,
        scheduledTime: new Date(now - (25 - i) * 60_000),
      });
    }
    // An occurrence materialised ahead of time is not an outcome yet.
    await insertRun(h, {
      tenantId: owner.tenantId,
      jobId: a.id,
      status: 'pending',
      scheduledTime: new Date(now + 60_000),
      finishedAt: null,
    });

    const table = await api.jobs.list({ limit: 1 });
    expect(table.counts).toEqual({ all: 2, active: 1, paused: 1, completed: 0 });
    expect(table.data).toHaveLength(1);
    expect(table.nextCursor).not.toBeNull();
    const second = await api.jobs.list({ limit: 1, cursor: table.nextCursor as string });
    const rows = [...table.data, ...second.data];
    const invoices = rows.find((j) => j.id === a.id);
    expect(invoices?.recent).toHaveLength(20);
    expect(invoices?.recent[0]?.status).toBe(statuses[24 % 5]);
    const times = invoices?.recent.map((r) => Date.parse(r.scheduledTime)) ?? [];
    expect([...times].sort((x, y) => y - x)).toEqual(times);
    expect(rows.find((j) => j.id === b.id)?.recent).toEqual([]);

    expect((await api.jobs.list({ search: 'invoice' })).data.map((j) => j.id)).toEqual([a.id]);
    expect((await api.jobs.list({ search: '%' })).data).toEqual([]);
    expect((await api.jobs.list({ status: 'paused' })).data.map((j) => j.id)).toEqual([b.id]);
  });

  it('draws the timeline from a window of runs with lag and skip reasons', async () => {
    const owner = await signUp();
    const job = await owner.api.jobs.create(jobBody() as never);
    const t = new Date(Date.now() - 10 * 60_000);
    const runId = await insertRun(h, {
      tenantId: owner.tenantId,
      jobId: job.id,
      status: 'succeeded',
      scheduledTime: t,
    });
    await h.db.pool.query(`UPDATE runs SET started_at = scheduled_time + interval '250 milliseconds' WHERE id = $1`, [
      runId,
    ]);
    await h.db.pool.query(
      `UPDATE runs SET status = 'skipped', skip_reason = 'overlap', started_at = NULL
        WHERE id = $1`,
      [
        await insertRun(h, {
          tenantId: owner.tenantId,
          jobId: job.id,
          status: 'pending',
          scheduledTime: new Date(t.getTime() + 60_000),
        }),
      ],
    );
    const timeline = await owner.api.jobs.timeline({
      jobId: job.id,
      from: new Date(Date.now() - 3600e3).toISOString(),
      to: new Date().toISOString(),
    });
    expect(timeline.truncated).toBe(false);
    expect(timeline.points.map((p) => [p.status, p.skipReason, p.lagMs])).toEqual([
      ['skipped', 'overlap', null],
      ['succeeded', null, 250],
    ]);
  });
});

describe('dead letter', () => {
  it('filters by time, counts before replaying, replays and discards', async () => {
    const owner = await signUp();
    const job = await owner.api.jobs.create(jobBody() as never);
    const old = await insertRun(h, {
      tenantId: owner.tenantId,
      jobId: job.id,
      status: 'dead',
      scheduledTime: new Date(Date.now() - 3 * 3600e3),
      finishedAt: new Date(Date.now() - 3 * 3600e3),
    });
    const recent = await Promise.all(
      [1, 2, 3].map((i) =>
        insertRun(h, {
          tenantId: owner.tenantId,
          jobId: job.id,
          status: 'dead',
          scheduledTime: new Date(Date.now() - i * 60_000),
        }),
      ),
    );
    const since = new Date(Date.now() - 3600e3).toISOString();
    expect(await owner.api.deadLetter.count({})).toEqual({ count: 4 });
    expect(await owner.api.deadLetter.count({ since })).toEqual({ count: 3 });
    expect((await owner.api.deadLetter.list({ since })).data.map((r) => r.jobName)).toEqual([
      job.name,
      job.name,
      job.name,
    ]);
    expect(await owner.api.deadLetter.jobs()).toEqual([{ jobId: job.id, name: job.name, count: 4 }]);

    expect(await owner.api.deadLetter.discard({ runIds: [recent[0] as string] })).toEqual({ discarded: 1 });
    expect(await owner.api.deadLetter.replayMatching({ since })).toEqual({ replayed: 2 });
    expect(await owner.api.deadLetter.count({})).toEqual({ count: 1 });
    expect((await owner.api.deadLetter.list({})).data.map((r) => r.id)).toEqual([old]);
    expect(await owner.api.deadLetter.replayMatching({})).toEqual({ replayed: 1 });
    expect(await owner.api.deadLetter.count({})).toEqual({ count: 0 });

    const viewer = await addMember(owner.tenantId, 'viewer');
    expect(await viewer.api.deadLetter.count({})).toEqual({ count: 0 });
    await expect(viewer.api.deadLetter.replayMatching({})).rejects.toMatchObject({ code: 'FORBIDDEN' });
  });
});

describe('cluster', () => {
  it('reports engine nodes from their heartbeat stats and the queue per priority', async () => {
    const owner = await signUp();
    await h.db.pool.query(
      `INSERT INTO engine_nodes (id, roles, hostname, pid, stats, heartbeat_at)
       VALUES ('node-up', '{scheduler,worker}', 'h1', 1, $1, now()),
              ('node-lost', '{worker}', 'h2', 2, '{}', now() - interval '1 minute')`,
      [
        JSON.stringify({
          partitions: 3,
          inFlight: 2,
          takeovers: 1,
          startLagMs: { count: 9, p50: 5, p95: 20, p99: 40 },
        }),
      ],
    );
    await h.db.pool.query('UPDATE users SET is_operator = true WHERE id = $1', [owner.userId]);
    const view = await owner.api.cluster.overview();
    expect(view.scope).toBe('operator');
    const up = view.nodes.find((n) => n.id === 'node-up');
    expect(up).toMatchObject({
      state: 'up',
      inFlight: 2,
      takeovers: 1,
      startLagMs: { count: 9, p50: 5, p95: 20, p99: 40 },
    });
    expect(view.nodes.find((n) => n.id === 'node-lost')?.state).toBe('lost');
    expect(view.queue.map((q) => q.priority)).toEqual(['high', 'normal', 'low']);
    expect(up?.hostname).toBe('h1');
    expect(up?.containers).toBeNull();
    expect(view.containerNodes).toBe(0);
  });

  it('counts the live nodes that can run containers; a lost one or one whose engine is away does not', async () => {
    const owner = await signUp();
    const docker = (available: boolean) =>
      JSON.stringify({
        containers: { available, engineId: 'E1', slots: 4, ...(available ? {} : { error: 'ENOENT' }) },
      });
    await h.db.pool.query(
      `INSERT INTO engine_nodes (id, roles, hostname, pid, stats, heartbeat_at)
       VALUES ('ctr-up', '{worker}', 'h1', 1, $1, now()),
              ('ctr-away', '{worker}', 'h2', 2, $2, now()),
              ('ctr-lost', '{worker}', 'h3', 3, $1, now() - interval '1 minute')`,
      [docker(true), docker(false)],
    );
    // A tenant's member learns whether containers can run, not why an engine is away.
    const member = await signUp();
    const tenantView = await member.api.cluster.overview();
    expect(tenantView.containerNodes).toBe(1);
    expect(tenantView.nodes.filter((n) => n.containers?.available === false)).toEqual([
      expect.objectContaining({ containers: { available: false, slots: 4, error: null } }),
    ]);
    await h.db.pool.query('UPDATE users SET is_operator = true WHERE id = $1', [owner.userId]);
    const view = await owner.api.cluster.overview();
    expect(view.scope).toBe('operator');
    expect(view.containerNodes).toBe(1);
    expect(view.nodes.find((n) => n.id === 'ctr-up')?.containers).toEqual({ available: true, slots: 4, error: null });
    expect(view.nodes.find((n) => n.id === 'ctr-away')?.containers).toEqual({
      available: false,
      slots: 4,
      error: 'ENOENT',
    });
  });

  it("shows a tenant's members, even its owner, only their own numbers and no node hosts", async () => {
    const other = await signUp();
    await h.db.pool.query(
      `INSERT INTO engine_nodes (id, roles, hostname, pid, version, stats, heartbeat_at)
       VALUES ('secret-host-4242-abc', '{worker}', 'secret-host', 4242, '9.9.9', $1, now())
       ON CONFLICT (id) DO NOTHING`,
      [JSON.stringify({ inFlight: 7, takeovers: 3, startLagMs: { count: 1, p50: 1, p95: 1, p99: 1 } })],
    );
    const view = await other.api.cluster.overview();
    expect(view.scope).toBe('tenant');
    const text = JSON.stringify(view);
    expect(text).not.toContain('secret-host');
    expect(text).not.toContain('4242');
    expect(text).not.toContain('9.9.9');
    for (const n of view.nodes) {
      expect(n).toMatchObject({ hostname: null, pid: null, version: null, inFlight: null, takeovers: null });
      expect(n.id).toMatch(/^node-\d+$/);
    }
    expect(view.nodes.some((n) => n.state === 'up')).toBe(true);
    for (const q of view.queue) expect(q).toMatchObject({ total: null, totalDue: null });
  });
});

describe('over HTTP', () => {
  it('puts field errors with REST paths in the error, and hides the text of crashes', async () => {
    const owner = await signUp();
    const post = (path: string, body: unknown) =>
      fetchRequestHandler({
        endpoint: '/api/trpc',
        req: new Request(`http://localhost/api/trpc/${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        }),
        router: appRouter,
        createContext: () =>
          createDashboardContext({
            deps: h.deps,
            userId: owner.userId,
            requestedTenantId: owner.tenantId,
            setActiveTenant: () => {},
          }),
      });
    const res = await post(
      'jobs.create',
      jobBody({ schedule: { type: 'cron', expression: '61 * * * *', timezone: 'Mars/Olympus' } }),
    );
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { message: string; data: { fieldErrors: Array<{ path: string }> } } };
    expect(body.error.data.fieldErrors.map((e) => e.path).sort()).toEqual(['schedule.expression', 'schedule.timezone']);

    const conflict = await post('jobs.resume', { id: 'job_01KB3Y8J2Q7Z9V4N6M5X0C1R2T' });
    expect(conflict.status).toBe(404);
    expect(((await conflict.json()) as { error: { message: string } }).error.message).toBe('Job not found');
  });
});
