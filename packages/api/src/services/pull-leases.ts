// Pull-queue leases (docs/api.md "Pull queues"): a worker that claimed a run keeps its lease
// alive and reports how the attempt ended. Completion is the same fenced statement engine
// workers use, with the same retry decision (decideRetry); a lease that expires is reaped by the
// engine's reaper like any other (a failed attempt).
import { decideRetry } from '@belfry/core';
import {
  closeCancelledAttempt,
  completeAttempts,
  enqueueRuns,
  extendPullLease,
  lockHeldPullRun,
  pgExecutor,
  type PullLease,
} from '@belfry/db';
import { routeOf } from '@belfry/handlers/schemas';
import type { Actor, ServiceDeps } from '../context';
import { AppError } from '../errors';
import type { CompleteBody, HeartbeatBody } from '../schemas/pull';
import type { RunView } from '../schemas/resources';
import { readLeaseToken } from '../security/lease-tokens';
import { authorize } from '../security/scopes';
import { withTransaction } from '../sql/tx';
import { runKey, selectRun, withAttempts } from './run-rows';

const DEFAULT_LEASE_SECONDS = 60;

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
