// The start gate on real PostgreSQL: a run claimed ahead is checked at its commit point
// (START_COMMIT_MS before it is due), not on the due instant, and is still never let go
// before it is due by the database clock; a cancel heard after the check still stops it.
import { type ClaimedRun, START_COMMIT_MS } from '@belfry/db';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../../test/db';
import { insertClaimedAheadRun, insertTenant } from '../../../../test/fixtures';
import { createLogger } from '../../src/logger';
import { StartGate } from '../../src/worker/start-gate';

const WORKER = 'gate-test';

describe('StartGate', () => {
  let db: TestDatabase;
  let tenantId: string;
  beforeAll(async () => {
    db = await createTestDatabase();
    tenantId = (await insertTenant(db.pool)).id;
  });
  afterAll(() => db?.destroy());

  const dbNow = async () =>
    Number((await db.pool.query(`SELECT (extract(epoch FROM clock_timestamp()) * 1000)::float8 AS ms`)).rows[0].ms);

  /** A scheduled run that WORKER claimed ahead, due `inMs` from now on the database clock. */
  async function claimedAhead(inMs: number): Promise<ClaimedRun> {
    const at = new Date(Math.floor(await dbNow()) + inMs);
    const { jobId, runId } = await insertClaimedAheadRun(db.pool, tenantId, {
      at,
      workerId: WORKER,
      partitions: db.partitions,
    });
    return { id: runId, scheduled_time: at, due_at: at, tenant_id: tenantId, job_id: jobId, attempt: 1 } as ClaimedRun;
  }

  /** The gate over a pool that notes when each start check was sent (local clock, ms). */
  function gate(): { gate: StartGate; checks: number[] } {
    const checks: number[] = [];
    const pool = {
      query: (...args: Parameters<pg.Pool['query']>) => {
        checks.push(Date.now());
        return (db.pool.query as (...a: unknown[]) => unknown)(...args);
      },
    } as unknown as pg.Pool;
    return { gate: new StartGate(pool, WORKER, createLogger('silent', {})), checks };
  }

  it('checks a run at its commit point and lets it go when due, never before', async () => {
    const run = await claimedAhead(START_COMMIT_MS + 400);
    const { gate: g, checks } = gate();
    // Asked early (this node's clock ran ahead): not settled yet, so it asks again at the commit point.
    expect(await g.confirm(run, new AbortController().signal)).toBe(true);
    expect(await dbNow()).toBeGreaterThanOrEqual(run.due_at.getTime());
    expect(checks).toHaveLength(2);
    // The second check was the one at the commit point, before the due time: nothing was left
    // to ask the database when the run came due.
    expect(checks[1]).toBeGreaterThanOrEqual(run.due_at.getTime() - START_COMMIT_MS - 5);
    expect(checks[1]).toBeLessThan(run.due_at.getTime());
  });

  it('a run settled but not yet due is still dropped when its cancel is heard', async () => {
    const run = await claimedAhead(START_COMMIT_MS + 300);
    const { gate: g, checks } = gate();
    const abort = new AbortController();
    const confirmed = g.confirm(run, abort.signal);
    // Once the commit point's check has been sent, the worker hears of a cancel (NOTIFY).
    while (checks.length < 2) await new Promise((r) => setTimeout(r, 5));
    abort.abort();
    expect(await confirmed).toBe(false);
    expect(await dbNow()).toBeLessThan(run.due_at.getTime());
  });

  it('a run cancelled before its commit point is not let go', async () => {
    const run = await claimedAhead(START_COMMIT_MS + 300);
    await db.pool.query(`UPDATE runs SET status = 'cancelled', finished_at = now() WHERE id = $1`, [run.id]);
    const { gate: g } = gate();
    expect(await g.confirm(run, new AbortController().signal)).toBe(false);
  });
});
