// Every list of /api/v1 is cursor-paginated (docs/api.md, Pagination): alert channels and pull queues
// answer { data, nextCursor }, walk to the end a page at a time, and refuse a bad limit or
// cursor with problem+json.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AlertChannelList, PullQueueList, type PullQueueView } from '../src/index';
import { claimFromPullQueue, listPullQueues } from '../src/services/pull-queues';
import { client, createHarness, type Harness, jobBody, makeTenant, type TestTenant } from './support';

let h: Harness;
let t: TestTenant;
let api: ReturnType<typeof client>;

beforeAll(async () => {
  h = await createHarness();
  t = await makeTenant(h);
  api = client(h, t.key);
});
afterAll(async () => {
  await h?.close();
});

/** Follows nextCursor from the first page; answers the ids (or names) in order and the page sizes. */
async function walk(path: string, limit: number, keyOf: (item: Record<string, unknown>) => string, as = api) {
  const keys: string[] = [];
  const sizes: number[] = [];
  let cursor: string | null = null;
  do {
    const res = await as.get(`${path}?limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`);
    expect(res.status).toBe(200);
    keys.push(...res.body.data.map(keyOf));
    sizes.push(res.body.data.length);
    cursor = res.body.nextCursor;
  } while (cursor);
  return { keys, sizes };
}

async function expectBadPageInput(path: string) {
  for (const [query, field] of [
    ['limit=0', 'limit'],
    ['limit=501', 'limit'],
    ['limit=ten', 'limit'],
    ['cursor=not*a*cursor', 'cursor'],
    // a cursor another list handed out
    [
      `cursor=${Buffer.from(JSON.stringify(['jobs', '2026-11-30T10:00:00.000000Z', 'job_01'])).toString('base64url')}`,
      'cursor',
    ],
  ] as const) {
    const res = await api.get(`${path}?${query}`);
    expect(res.status, `${path}?${query}`).toBe(400);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    expect(res.body.errors.map((e: { path: string }) => e.path)).toContain(field);
  }
}

describe('list pagination', () => {
  it('GET /alert-channels pages oldest first and ends with nextCursor null', async () => {
    const created: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await api.post('/api/v1/alert-channels', { type: 'email', to: [`ops${i}@example.com`] });
      expect(res.status).toBe(201);
      created.push(res.body.id);
    }
    const first = await api.get('/api/v1/alert-channels?limit=2');
    expect(AlertChannelList.parse(first.body).data).toHaveLength(2);
    expect(first.body.nextCursor).toEqual(expect.any(String));
    const { keys, sizes } = await walk('/api/v1/alert-channels', 2, (c) => c.id as string);
    expect(keys).toEqual(created);
    expect(sizes).toEqual([2, 2, 1]);
    const all = await api.get('/api/v1/alert-channels');
    expect(all.body).toEqual({ data: expect.any(Array), nextCursor: null });
    expect(all.body.data).toHaveLength(5);
    await expectBadPageInput('/api/v1/alert-channels');
  });

  it('GET /queues pages by name and ends with nextCursor null', async () => {
    const names = ['q-c', 'q-a', 'q-e', 'q-b', 'q-d'];
    for (const queue of names) {
      const res = await api.post('/api/v1/jobs', jobBody({ name: queue, target: { type: 'pull', queue } }));
      expect(res.status).toBe(201);
    }
    const first = await api.get('/api/v1/queues?limit=2');
    expect(PullQueueList.parse(first.body).data.map((q) => q.name)).toEqual(['q-a', 'q-b']);
    const { keys, sizes } = await walk('/api/v1/queues', 2, (q) => q.name as string);
    expect(keys).toEqual([...names].sort());
    expect(sizes).toEqual([2, 2, 1]);
    expect((await api.get('/api/v1/queues')).body.nextCursor).toBeNull();
    await expectBadPageInput('/api/v1/queues');
  });

  it('GET /queues counts a page of queues without reading every queue of the tenant', async () => {
    const t2 = await makeTenant(h);
    const api2 = client(h, t2.key);
    const jobs: Record<string, string> = {};
    for (const queue of ['r-0', 'r-1', 'r-2', 'r-3', 'r-4', 'r-5', 'r-6']) {
      const res = await api2.post('/api/v1/jobs', jobBody({ name: queue, target: { type: 'pull', queue } }));
      expect(res.status).toBe(201);
      jobs[queue] = res.body.id;
    }
    for (const queue of ['r-1', 'r-1', 'r-5']) {
      expect((await api2.post(`/api/v1/jobs/${jobs[queue]}/trigger`)).status).toBe(201);
    }
    const claim = { max: 1, leaseSeconds: 60, waitSeconds: 0, worker: 'box-1' };
    expect((await claimFromPullQueue(h.deps, t2.actor, 'r-5', claim)).data).toHaveLength(1);
    // A queue only a worker has asked, with no job targeting it.
    await h.db.pool.query(`INSERT INTO pull_workers (tenant_id, queue, worker) VALUES ($1, 'r-9', 'box-2')`, [
      t2.tenantId,
    ]);

    // Every query the listing sends answers at most a page (+1): an in-memory page of every
    // queue would read all eight names at once.
    let most = 0;
    const pool = new Proxy(h.deps.pool, {
      get(target, prop) {
        if (prop === 'query') {
          return async (...args: Parameters<typeof target.query>) => {
            const res = await (target.query as (...a: unknown[]) => Promise<{ rows: unknown[] }>)(...args);
            most = Math.max(most, res.rows.length);
            return res;
          };
        }
        const value = Reflect.get(target, prop, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const deps = { ...h.deps, pool };
    const seen: PullQueueView[] = [];
    let cursor: string | undefined;
    do {
      const page = await listPullQueues(deps, t2.actor, { limit: 3, ...(cursor ? { cursor } : {}) });
      expect(page.data.length).toBeLessThanOrEqual(3);
      seen.push(...page.data);
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    expect(most).toBeLessThanOrEqual(4);
    expect(seen.map((q) => q.name)).toEqual(['r-0', 'r-1', 'r-2', 'r-3', 'r-4', 'r-5', 'r-6', 'r-9']);
    const byName = Object.fromEntries(seen.map((q) => [q.name, q]));
    expect(byName['r-0']).toMatchObject({ waiting: 0, due: 0, claimed: 0, lastClaimAt: null });
    expect(byName['r-1']).toMatchObject({ waiting: 2, due: 2, claimed: 0, lastClaimAt: null });
    expect(byName['r-5']).toMatchObject({ waiting: 0, claimed: 1, lastClaimAt: expect.any(String) });
    expect(byName['r-5']?.workers).toEqual([expect.objectContaining({ name: 'box-1' })]);
    expect(byName['r-9']).toMatchObject({ waiting: 0, claimed: 0, lastClaimAt: null });
    expect(byName['r-9']?.workers).toEqual([expect.objectContaining({ name: 'box-2', lastClaimAt: null })]);
    // The REST answer is the same pages.
    const { keys, sizes } = await walk('/api/v1/queues', 3, (q) => q.name as string, api2);
    expect(keys).toEqual(seen.map((q) => q.name));
    expect(sizes).toEqual([3, 3, 2]);
  });
});
