// Successful pull-run completions, recorded a batch at a time. Workers complete the runs of a
// claim together (up to 100 requests at once per claim): each success, recorded alone, cost a
// transaction of its own — BEGIN, the fenced update, the one-off check, the alert outcome,
// COMMIT — and those round trips were most of the API's and the database's CPU per run. Here
// the successes that arrive while the previous batch is being written wait for it and then go
// together, in one transaction of the same statements. Each request still gets its own answer:
// its run, or nothing (its lease was no longer held: the caller answers 409 as before).
// Fencing is per run, inside the batch statement; a failing batch fails every request in it
// (after withTransaction's retries of deadlocks), as a failing single transaction did. Batches
// are per tenant: one tenant's batch waiting on a lock (a PATCH holding its job's row) never
// holds up another tenant's completions.
import { type FinishedPullRunRow, finishPullSuccesses, type PullSuccess, recordAlertOutcomes } from '@belfry/db';
import type pg from 'pg';
import { withTransaction } from '../sql/tx';
import { perPool } from './per-pool';

/** Successes per transaction: a claim's worth and then some; more wait for the next one. */
const MAX_BATCH = 200;
/**
 * Batches written at once per tenant. One: the completions that arrive meanwhile wait and go
 * together next (batches of ~75 in the bench instead of ~14 with two) — unless the batch being
 * written is older than STUCK_MS (waiting on a lock: a PATCH holding one job's row, say): then
 * another goes beside it, up to MAX_STUCK_IN_FLIGHT, so one locked job does not hold every other
 * success of the tenant until their leases run out.
 */
const MAX_IN_FLIGHT = 1;
const STUCK_MS = 50;
const MAX_STUCK_IN_FLIGHT = 8;

interface Waiter {
  success: PullSuccess;
  resolve(rows: FinishedPullRunRow[] | null): void;
  reject(err: unknown): void;
}

interface Batcher {
  waiting: Waiter[];
  inFlight: number;
  /** when the latest batch in flight started (performance.now()) */
  startedAt: number;
  scheduled: boolean;
}

// Per database (a pool) and tenant, on globalThis like the API-key cache: one batcher per
// tenant and process however many copies of this module a bundler makes. A tenant's batcher
// goes when it is idle.
const batchers = perPool<Batcher>('belfry.pullCompletionBatchers');

/**
 * Records a held lease's attempt as succeeded, with the successes that arrive with it. Answers
 * the run's rows (finishPullAttempt's shape), or null when the lease was no longer held.
 */
export function finishPullSuccess(pool: pg.Pool, success: PullSuccess): Promise<FinishedPullRunRow[] | null> {
  const byTenant = batchers(pool);
  const tenantId = success.lease.tenantId;
  let batcher = byTenant.get(tenantId);
  if (!batcher) {
    batcher = { waiting: [], inFlight: 0, startedAt: 0, scheduled: false };
    byTenant.set(tenantId, batcher);
  }
  const b = batcher;
  const tenants = byTenant;
  return new Promise((resolve, reject) => {
    b.waiting.push({ success, resolve, reject });
    schedule(pool, b, () => {
      if (tenants.get(tenantId) === b) tenants.delete(tenantId);
    });
  });
}

function schedule(pool: pg.Pool, b: Batcher, forget: () => void): void {
  if (!b.waiting.length && !b.inFlight && !b.scheduled) {
    forget();
    return;
  }
  if (b.scheduled || !b.waiting.length) return;
  const wait = waitBeforeNext(b);
  if (wait === null) return; // the batch in flight schedules again when it ends
  b.scheduled = true;
  const go = () => {
    b.scheduled = false;
    flush(pool, b, forget);
  };
  // After the current I/O callbacks: the requests read in the same turn join this batch.
  if (wait === 0) setImmediate(go);
  else setTimeout(go, wait);
}

/** 0: a batch may start now; ms until one may start beside a stuck one; null: wait for one to end. */
function waitBeforeNext(b: Batcher): number | null {
  if (b.inFlight < MAX_IN_FLIGHT) return 0;
  if (b.inFlight >= MAX_STUCK_IN_FLIGHT) return null;
  return Math.max(0, Math.ceil(b.startedAt + STUCK_MS - performance.now()));
}

function flush(pool: pg.Pool, b: Batcher, forget: () => void): void {
  if (!b.waiting.length) return;
  if (waitBeforeNext(b) !== 0) {
    schedule(pool, b, forget);
    return;
  }
  // One request per run in a batch: a completion sent twice (a client's retry) must find the
  // first one's outcome — 409 — not share its success. The second waits for the next batch.
  const batch: Waiter[] = [];
  const later: Waiter[] = [];
  const runs = new Set<string>();
  for (const w of b.waiting) {
    if (batch.length < MAX_BATCH && !runs.has(w.success.lease.runId)) {
      runs.add(w.success.lease.runId);
      batch.push(w);
    } else later.push(w);
  }
  b.waiting = later;
  b.inFlight++;
  b.startedAt = performance.now();
  write(pool, batch)
    .then(
      (answers) => {
        for (const w of batch) w.resolve(answers.get(w.success.lease.runId) ?? null);
      },
      (err: unknown) => {
        for (const w of batch) w.reject(err);
      },
    )
    .finally(() => {
      b.inFlight--;
      schedule(pool, b, forget);
    });
  schedule(pool, b, forget);
}

/** The batch's transaction: what completePullRun does for one success, for all of them. */
function write(pool: pg.Pool, batch: Waiter[]): Promise<Map<string, FinishedPullRunRow[]>> {
  return withTransaction(pool, async (client) => {
    // Rows locked in one order (by run id), so two batches in flight cannot deadlock.
    const byRun = batch.map((w) => w.success).sort((x, y) => (x.lease.runId < y.lease.runId ? -1 : 1));
    const finished = await finishPullSuccesses(client, byRun);
    const runs = [...finished.values()].map((rows) => rows[0] as FinishedPullRunRow);
    // A success resolves the job's incidents (a one-off is stored completed already: nothing to
    // write to the job, advance-schedule.ts in @belfry/db). In the order the requests arrived, as they would have been recorded one by one.
    const order = new Map(batch.map((w, i) => [w.success.lease.runId, i]));
    await recordAlertOutcomes(
      client,
      runs
        .sort((x, y) => (order.get(x.id) ?? 0) - (order.get(y.id) ?? 0))
        .map((r) => ({ runId: r.id, tenantId: r.tenant_id, jobId: r.job_id, status: 'succeeded' })),
    );
    return finished;
  });
}
