// Fairness between tenants on a real engine node: a tenant with a backlog of thousands of
// due runs neither starves a small tenant due at the same moment nor exceeds its own
// concurrency limit.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../test/db';
import { type EngineNode, startEngineNode } from '../../../test/engine-nodes';
import { insertTenant, type Sink, startSink, TEST_ENCRYPTION_KEY_MATERIAL, waitForRows } from '../../../test/fixtures';
import { dbNow, insertJobsBulk, range, trackOpenRequests } from './support';

const LIMIT = 10;
const BIG = 3_000;
const SMALL = 20;

describe('engine: fairness between tenants', () => {
  let db: TestDatabase;
  let node: EngineNode;
  let sink: Sink;

  beforeAll(async () => {
    db = await createTestDatabase();
    await db.pool.query('SELECT 1');
    sink = await startSink();
    sink.respond = () => ({ status: 200, delayMs: 20 });
    node = await startEngineNode({
      databaseUrl: db.url,
      nodeId: 'fair-1',
      env: {
        BELFRY_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY_MATERIAL,
        BELFRY_TENANT_CONCURRENCY: String(LIMIT),
        BELFRY_SHUTDOWN_GRACE_SECONDS: '1',
      },
    });
  });
  afterAll(async () => {
    await node?.stop();
    await sink?.close();
    await db?.destroy();
  });

  it('a small tenant is served while a big backlog drains, and the big one stays within its limit', {
    timeout: 170_000,
  }, async () => {
    const big = await insertTenant(db.pool, { maxConcurrency: LIMIT });
    const small = await insertTenant(db.pool, { maxConcurrency: LIMIT });
    // Everything falls due at the same moment, a little ahead so all of it is queued by then.
    const due = new Date(Math.ceil(((await dbNow(db.pool)).getTime() + 4_000) / 1000) * 1000);
    const common = { url: sink.url, partitions: db.partitions, schedule: { type: 'once' as const } };
    const bigJobs = new Set(
      await insertJobsBulk(db.pool, { ...common, tenantId: big.id, nextRunAt: range(BIG).map(() => due) }),
    );
    const smallJobs = new Set(
      await insertJobsBulk(db.pool, { ...common, tenantId: small.id, nextRunAt: range(SMALL).map(() => due) }),
    );
    const tenantOf = (jobId: unknown) =>
      bigJobs.has(String(jobId)) ? 'big' : smallJobs.has(String(jobId)) ? 'small' : null;
    const { max } = trackOpenRequests(sink.server, (req) => tenantOf(req.headers['belfry-job-id']));

    const count = (tenant: 'big' | 'small') =>
      sink.deliveries.filter((d) => tenantOf(d.headers['belfry-job-id']) === tenant).length;
    // Enough to judge: the small tenant done, and the big one through its first third.
    await sink.waitFor(() => count('big') >= BIG / 3 && count('small') >= SMALL, 150_000);

    const order = sink.deliveries.map((d) => tenantOf(d.headers['belfry-job-id']));
    const lastSmall = order.lastIndexOf('small');
    const bigThird = order.map((t, i) => (t === 'big' ? i : -1)).filter((i) => i >= 0)[BIG / 3 - 1]!;
    expect(lastSmall).toBeLessThan(bigThird);
    expect(sink.deliveries.every((d) => d.at >= due.getTime() - 50)).toBe(true);

    expect(max.get('big')).toBeLessThanOrEqual(LIMIT);
    expect(max.get('big')).toBeGreaterThan(1);
    expect(max.get('small')).toBeLessThanOrEqual(LIMIT);

    // Nothing delivered twice; every small run succeeded; every big run exists, once.
    const ids = sink.deliveries.map((d) => d.headers['webhook-id']);
    expect(new Set(ids).size).toBe(ids.length);
    await waitForRows<{ n: number }>(
      db.pool,
      `SELECT count(*)::int AS n FROM runs WHERE tenant_id = $1 AND status = 'succeeded'`,
      [small.id],
      (rows) => rows[0]?.n === SMALL,
    );
    const runs = await db.pool.query<{ n: number; jobs: number }>(
      'SELECT count(*)::int AS n, count(DISTINCT job_id)::int AS jobs FROM runs WHERE tenant_id = $1',
      [big.id],
    );
    expect(runs.rows[0]).toEqual({ n: BIG, jobs: BIG });
  });
});

describe('engine: a tenant whose targets hang', () => {
  let db: TestDatabase;
  let node: EngineNode;
  let sink: Sink;

  beforeAll(async () => {
    db = await createTestDatabase();
    sink = await startSink();
    // The hog's target accepts its requests and never answers within their timeout.
    sink.respond = (d) => (d.url.endsWith('/hang') ? { status: 200, delayMs: 120_000 } : { status: 200 });
    node = await startEngineNode({
      databaseUrl: db.url,
      nodeId: 'hang-1',
      env: { BELFRY_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY_MATERIAL, BELFRY_SHUTDOWN_GRACE_SECONDS: '1' },
    });
  });
  afterAll(async () => {
    await node?.stop();
    await sink?.close();
    await db?.destroy();
  });

  it("does not delay another tenant's runs to the same origin", { timeout: 120_000 }, async () => {
    const hog = await insertTenant(db.pool, { maxConcurrency: 50 });
    const small = await insertTenant(db.pool, { maxConcurrency: 50 });
    const due = new Date(Math.ceil(((await dbNow(db.pool)).getTime() + 3_000) / 1000) * 1000);
    const common = { partitions: db.partitions, schedule: { type: 'once' as const }, timeoutSeconds: 100 };
    const hogJobs = new Set(
      await insertJobsBulk(db.pool, {
        ...common,
        tenantId: hog.id,
        url: `${sink.url}/hang`,
        nextRunAt: range(200).map(() => due),
      }),
    );
    // Due a little later, so the hog's requests are already stuck at the origin.
    const later = new Date(due.getTime() + 2_000);
    await insertJobsBulk(db.pool, {
      ...common,
      tenantId: small.id,
      url: sink.url,
      nextRunAt: range(30).map(() => later),
    });
    const { open } = trackOpenRequests(sink.server, (req) =>
      hogJobs.has(String(req.headers['belfry-job-id'])) ? 'hog' : 'small',
    );

    // The hog fills its pool to the origin (16 sockets) and its concurrency (50 running).
    await sink.waitFor(
      (all) => all.filter((d) => hogJobs.has(String(d.headers['belfry-job-id']))).length >= 16,
      60_000,
    );
    const running = `SELECT count(*)::int AS n FROM runs WHERE tenant_id = $1 AND status = 'running'`;
    await waitForRows<{ n: number }>(db.pool, running, [hog.id], (rows) => rows[0]?.n === 50, 60_000);
    await waitForRows<{ n: number }>(
      db.pool,
      `SELECT count(*)::int AS n FROM runs WHERE tenant_id = $1 AND status = 'succeeded'`,
      [small.id],
      (rows) => rows[0]?.n === 30,
      90_000,
    );
    // Served while the hog's requests were all still hanging at that same origin.
    expect(open.get('hog')).toBe(16);
    expect((await db.pool.query<{ n: number }>(running, [hog.id])).rows[0]?.n).toBe(50);
    const { rows } = await db.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM runs WHERE tenant_id = $1 AND status NOT IN ('pending', 'running')`,
      [hog.id],
    );
    expect(rows[0]?.n).toBe(0);
  });
});
