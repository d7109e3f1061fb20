// Pull queues (CONTRACT.md §6): a tenant's own workers claim the runs of `pull` targets, keep
// their leases alive and report how each attempt ended. A claim fetches due messages from the
// tenant's queue `p.<tenant>.<queue>` and leases their runs in one transaction (as engine
// workers do); a long-poll waits on the process's PullWakeups between tries. Completion is the
// same fenced statement engine workers use, with the same retry decision (decideRetry); a lease
// that expires is reaped by the engine's reaper like any other (a failed attempt).
import { decideRetry } from '@belfry/core';
import {
  claimPullRuns,
  type ClaimedPullRun,
  closeCancelledAttempt,
  completeAttempts,
  enqueueRuns,
  ensureQueues,
  extendPullLease,
  lockHeldPullRun,
  pgExecutor,
  type PullLease,
  pullQueueDepths,
  pullQueueNextDue,
  queueName,
  recordPullWorker,
  type RunMessage,
  selectRunRoutes,
  skipOverlappingRuns,
} from '@belfry/db';
import { routeOf } from '@belfry/handlers/schemas';
import type { Actor, ServiceDeps } from '../context';
import { AppError } from '../errors';
import type { ClaimBody, ClaimedRunView, CompleteBody, HeartbeatBody, PullQueueView } from '../schemas/pull';
import type { RunView } from '../schemas/resources';
import { issueLeaseToken, readLeaseToken } from '../security/lease-tokens';
import { authorize } from '../security/scopes';
import { withTransaction } from '../sql/tx';
import { runKey, selectRun, toRunView, withAttempts } from './run-rows';
import { tenantJobsSql, tenantSeq } from './job-page';

const DEFAULT_LEASE_SECONDS = 60;
/** How long a long-poll sleeps between tries when this process has no wake-up listener. */
const FALLBACK_POLL_MS = 1_000;

function workerOf(actor: Actor, given: string | undefined): string {
  return given ?? `key:${actor.id ?? 'system'}`;
}

/**
 * Claims up to `max` due runs of the queue, waiting up to `waitSeconds` for one when none is
 * due. Never hands out a run before it is due (pg-boss fetches only messages whose start time
 * has come). `signal`: the client went away — stop waiting and claim nothing more.
 */
export async function claimFromPullQueue(
  deps: ServiceDeps,
  actor: Actor,
  queue: string,
  body: ClaimBody,
  signal?: AbortSignal,
): Promise<{ data: ClaimedRunView[] }> {
  authorize(actor, 'queues:consume');
  const worker = workerOf(actor, body.worker);
  const name = queueName({ lane: 'pull', tenantId: actor.tenantId, queue });
  const deadline = Date.now() + body.waitSeconds * 1000;
  await ensureQueues(deps.queue, [name]);
  let claimed: ClaimedPullRun[] = [];
  for (;;) {
    if (signal?.aborted) break;
    claimed = await claimOnce(deps, name, worker, body);
    if (claimed.length || Date.now() >= deadline) break;
    await waitForWork(deps, actor.tenantId, queue, name, deadline, signal);
  }
  await recordPullWorker(deps.pool, actor.tenantId, queue, worker, claimed.length > 0);
  return {
    data: claimed.map((r) => {
      const { payload, lease_expires_at, ...row } = r;
      const run: RunView = toRunView({ ...row, sort_ts: '' }, [
        {
          attempt: r.attempt,
          workerId: worker,
          startedAt: r.started_at.toISOString(),
          finishedAt: null,
          status: 'running',
          httpStatus: null,
          durationMs: null,
          error: null,
          responseSnippet: null,
          exitCode: null,
        },
      ]);
      return {
        run,
        payload: payload ?? null,
        leaseToken: issueLeaseToken(deps.keyring, {
          runId: r.id,
          scheduledTime: r.scheduled_time,
          attempt: r.attempt,
          worker,
          tenantId: actor.tenantId,
        }),
        leaseExpiresAt: lease_expires_at.toISOString(),
      };
    }),
  };
}

async function claimOnce(deps: ServiceDeps, name: string, worker: string, body: ClaimBody): Promise<ClaimedPullRun[]> {
  return withTransaction(
    deps.pool,
    async (client) => {
      const db = pgExecutor(client);
      const jobs = await deps.queue.fetch<RunMessage>(name, { batchSize: body.max, db });
      if (!jobs.length) return [];
      const ids = jobs.map((j) => j.data.runId);
      const times = jobs.map((j) => new Date(j.data.scheduledTime));
      // A job whose target changed since its run was queued: the run moves to where it routes now.
      const moved = (await selectRunRoutes(client, ids, times)).filter((r) => {
        const route = routeOf({ type: r.target_type, queue: r.target_queue }, r.tenant_id, r.priority);
        return route.lane !== 'pull' || queueName(route) !== name;
      });
      if (moved.length) {
        await enqueueRuns(
          deps.queue,
          db,
          moved.map((r) => ({
            runId: r.id,
            route: routeOf({ type: r.target_type, queue: r.target_queue }, r.tenant_id, r.priority),
            scheduledTime: r.scheduled_time,
            startAfter: new Date(),
          })),
        );
      }
      const gone = new Set(moved.map((r) => r.id));
      const keep = jobs.filter((j) => !gone.has(j.data.runId));
      const checked = keep.filter((j) => j.data.overlap);
      if (checked.length) {
        await skipOverlappingRuns(
          client,
          checked.map((j) => j.data.runId),
          checked.map((j) => new Date(j.data.scheduledTime)),
        );
      }
      const claimed = await claimPullRuns(
        client,
        worker,
        body.leaseSeconds * 1000,
        keep.map((j) => j.data.runId),
        keep.map((j) => new Date(j.data.scheduledTime)),
      );
      await deps.queue.deleteJob(
        name,
        jobs.map((j) => ({ id: j.id, retryCount: j.retryCount })),
        { db },
      );
      return claimed;
    },
    { maxTries: 3 },
  );
}

async function waitForWork(
  deps: ServiceDeps,
  tenantId: string,
  queue: string,
  name: string,
  deadline: number,
  signal: AbortSignal | undefined,
): Promise<void> {
  const wakeups = deps.pullWakeups;
  if (!wakeups) {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, Math.max(0, Math.min(deadline - Date.now(), FALLBACK_POLL_MS)));
      signal?.addEventListener('abort', () => {
        clearTimeout(timer);
        resolve();
      });
    });
    return;
  }
  // Registered before looking at the queue, so a hint sent in between is not missed.
  const wait = wakeups.wait(name, deadline);
  const onAbort = () => wait.cancel();
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    const next = await pullQueueNextDue(deps.pool, tenantId, queue);
    if (next) wait.wakeAt(next.getTime());
    await wait.done;
  } finally {
    wait.cancel();
    signal?.removeEventListener('abort', onAbort);
  }
}

/** The lease a token proves for this run of this tenant: 404 for another tenant's run, 409 for a stale or foreign token. */
async function leaseFor(deps: ServiceDeps, actor: Actor, runId: string, token: string) {
  const key = runKey(runId);
  const lease = readLeaseToken(deps.keyring, token);
  if (!key || !lease || lease.runId !== runId || lease.tenantId !== actor.tenantId) {
    if (!(await selectRun(deps.pool, actor.tenantId, runId))) throw AppError.notFound('Run');
    throw new AppError('conflict', 'this lease token does not hold the run');
  }
  return lease;
}

async function notHeld(deps: ServiceDeps, actor: Actor, lease: PullLease): Promise<never> {
  const row = await selectRun(deps.pool, actor.tenantId, lease.runId);
  if (!row) throw AppError.notFound('Run');
  // A run cancelled (or paused away) while the worker held it: its attempt ends cancelled in
  // the history, as an engine worker's does when it learns of the cancel.
  if (row.status === 'cancelled') await closeCancelledAttempt(deps.pool, lease);
  throw new AppError(
    'conflict',
    `the lease is no longer held: the run is ${row.status}${row.status === 'running' ? ' under a newer lease' : ''}`,
  );
}

export async function heartbeatPullRun(
  deps: ServiceDeps,
  actor: Actor,
  runId: string,
  body: HeartbeatBody,
): Promise<{ leaseExpiresAt: string }> {
  authorize(actor, 'queues:consume');
  const lease = await leaseFor(deps, actor, runId, body.leaseToken);
  const expires = await extendPullLease(deps.pool, lease, (body.leaseSeconds ?? DEFAULT_LEASE_SECONDS) * 1000);
  if (!expires) return notHeld(deps, actor, lease);
  return { leaseExpiresAt: expires.toISOString() };
}

/**
 * Records how the attempt ended, fenced by the lease: succeeded; or failed — retried per the
 * job's `retry` (a `retryAfterSeconds` is honoured, capped at maxDelaySeconds) or dead when
 * attempts are used up or the worker says it is not retryable. Answers the run.
 */
export async function completePullRun(
  deps: ServiceDeps,
  actor: Actor,
  runId: string,
  body: CompleteBody,
): Promise<RunView> {
  authorize(actor, 'queues:consume');
  const lease = await leaseFor(deps, actor, runId, body.leaseToken);
  const recorded = await withTransaction(deps.pool, async (client) => {
    const held = await lockHeldPullRun(client, lease);
    if (!held) return false;
    const now = held.db_now;
    const base = {
      runId: lease.runId,
      scheduledTime: lease.scheduledTime,
      attempt: lease.attempt,
      httpStatus: null,
      durationMs: Math.max(0, now.getTime() - held.attempt_started_at.getTime()),
      responseSnippet: body.output ?? null,
      requestHeaders: null,
    };
    let outcome: Parameters<typeof completeAttempts>[2][number];
    if (body.status === 'succeeded') {
      outcome = { ...base, runStatus: 'succeeded', attemptStatus: 'succeeded', nextAttemptAt: null, error: null };
    } else {
      const decision = decideRetry(
        {
          maxAttempts: held.retry_max_attempts,
          initialDelaySeconds: held.retry_initial_delay_seconds,
          maxDelaySeconds: held.retry_max_delay_seconds,
        },
        lease.attempt,
        {
          retryable: body.retryable,
          retryAfterMs: body.retryAfterSeconds === undefined ? null : body.retryAfterSeconds * 1000,
        },
        now,
        Math.random,
      );
      const error = body.error ?? 'the worker reported failure';
      outcome =
        'retryAt' in decision
          ? { ...base, runStatus: 'failed', attemptStatus: 'failed', nextAttemptAt: decision.retryAt, error }
          : { ...base, runStatus: 'dead', attemptStatus: 'failed', nextAttemptAt: null, error };
    }
    const done = await completeAttempts(client, lease.worker, [outcome]);
    if (!done.length) return false;
    if (outcome.runStatus === 'failed' && outcome.nextAttemptAt) {
      await enqueueRuns(deps.queue, pgExecutor(client), [
        {
          runId: lease.runId,
          route: routeOf({ type: held.target_type, queue: held.target_queue }, actor.tenantId, done[0]!.priority),
          scheduledTime: lease.scheduledTime,
          startAfter: outcome.nextAttemptAt,
        },
      ]);
    }
    return true;
  });
  if (!recorded) return notHeld(deps, actor, lease);
  const row = await selectRun(deps.pool, actor.tenantId, runId);
  if (!row) throw AppError.notFound('Run');
  const [view] = await withAttempts(deps.pool, actor.tenantId, [row]);
  return view as RunView;
}

const WORKERS_SEEN_HOURS = 24;

/**
 * The tenant's pull queues: every queue a job targets, has waiting runs or was claimed from,
 * with what waits, what is claimed, and the workers seen.
 */
export async function listPullQueues(deps: ServiceDeps, actor: Actor): Promise<{ data: PullQueueView[] }> {
  authorize(actor, 'runs:read');
  const tenantId = actor.tenantId;
  const seq = await tenantSeq(deps.pool, tenantId);
  const [depths, targeted, claimed, workers] = await Promise.all([
    pullQueueDepths(deps.pool, tenantId),
    deps.pool.query<{ queue: string }>(
      `SELECT DISTINCT j.target->>'queue' AS queue FROM jobs j
        WHERE ${tenantJobsSql('$1').join(' AND ')} AND j.target->>'type' = 'pull'`,
      [seq],
    ),
    deps.pool.query<{ queue: string; claimed: number }>(
      `SELECT j.target->>'queue' AS queue, count(*)::int AS claimed
         FROM runs r JOIN jobs j ON j.id = r.job_id
        WHERE r.tenant_id = $1 AND r.status = 'running' AND j.target->>'type' = 'pull'
        GROUP BY 1`,
      [tenantId],
    ),
    deps.pool.query<{ queue: string; worker: string; last_seen_at: Date; last_claim_at: Date | null }>(
      `SELECT queue, worker, last_seen_at, last_claim_at FROM pull_workers
        WHERE tenant_id = $1 AND last_seen_at > now() - make_interval(hours => $2)
        ORDER BY queue, last_seen_at DESC, worker`,
      [tenantId, WORKERS_SEEN_HOURS],
    ),
  ]);
  const lastClaims = await deps.pool.query<{ queue: string; last_claim_at: Date | null }>(
    'SELECT queue, max(last_claim_at) AS last_claim_at FROM pull_workers WHERE tenant_id = $1 GROUP BY queue',
    [tenantId],
  );
  const names = new Set<string>([
    ...depths.map((d) => d.name),
    ...targeted.rows.map((r) => r.queue),
    ...claimed.rows.map((r) => r.queue),
    ...lastClaims.rows.map((r) => r.queue),
  ]);
  return {
    data: [...names].sort().map((name) => {
      const depth = depths.find((d) => d.name === name);
      const last = lastClaims.rows.find((r) => r.queue === name)?.last_claim_at ?? null;
      return {
        name,
        waiting: depth?.waiting ?? 0,
        due: depth?.due ?? 0,
        claimed: claimed.rows.find((r) => r.queue === name)?.claimed ?? 0,
        lastClaimAt: last?.toISOString() ?? null,
        workers: workers.rows
          .filter((w) => w.queue === name)
          .map((w) => ({
            name: w.worker,
            lastSeenAt: w.last_seen_at.toISOString(),
            lastClaimAt: w.last_claim_at?.toISOString() ?? null,
          })),
      };
    }),
  };
}
