// Pull-queue leases (docs/api.md "Pull queues"): a worker that claimed a run keeps its lease
// alive and reports how the attempt ended. Completion is fenced like an engine worker's (same
// attempt, same worker, still running), with the same retry decision (decideRetry) and the same
// follow-ups (a finished one-off completes, alert outcomes); a lease that expires is reaped by
// the engine's reaper like any other (a failed attempt).
import { decideRetry } from '@belfry/core';
import {
  closeCancelledAttempt,
  enqueueRuns,
  extendPullLease,
  type FinishedPullRunRow,
  finishPullAttempt,
  lockHeldPullRun,
  pgExecutor,
  type PullLease,
  type PullOutcome,
  recordAlertOutcomes,
} from '@belfry/db';
import { routeOf } from '@belfry/handlers/schemas';
import type { Actor, ServiceDeps } from '../context';
import { AppError } from '../errors';
import type { CompleteBody, HeartbeatBody } from '../schemas/pull';
import type { AttemptView, RunView } from '../schemas/resources';
import { readLeaseToken } from '../security/lease-tokens';
import { authorize } from '../security/scopes';
import { withTransaction } from '../sql/tx';
import { finishPullSuccess } from './pull-completions';
import { runKey, selectRun, toRunView } from './run-rows';

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
 *
 * A success joins the successes that arrive with it in one transaction (pull-completions.ts:
 * the fenced update, the attempt row and the run with its attempts for the answer, then what
 * every finished run costs — a one-off's completion and the alert outcome). A failure is a
 * transaction of its own that first locks the run to read the job's retry settings for the
 * decision.
 */
export async function completePullRun(
  deps: ServiceDeps,
  actor: Actor,
  runId: string,
  body: CompleteBody,
): Promise<RunView> {
  authorize(actor, 'queues:consume');
  const lease = await leaseFor(deps, actor, runId, body.leaseToken);
  const output = body.output ?? null;
  if (body.status === 'succeeded') {
    const succeeded = await finishPullSuccess(deps.pool, { lease, output });
    if (!succeeded) return notHeld(deps, actor, lease);
    return finishedRunView(succeeded);
  }
  const rows = await withTransaction(deps.pool, async (client) => {
    const held = await lockHeldPullRun(client, lease);
    if (!held) return null;
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
      held.db_now,
      Math.random,
    );
    const error = body.error ?? 'the worker reported failure';
    const outcome: PullOutcome =
      'retryAt' in decision
        ? { runStatus: 'failed', nextAttemptAt: decision.retryAt, error, output }
        : { runStatus: 'dead', nextAttemptAt: null, error, output };
    const finished = await finishPullAttempt(client, lease, outcome);
    const run = finished[0];
    if (!run) return null;
    // What every finished run does, as completeAttempts does it for engine workers.
    await recordAlertOutcomes(client, [
      { runId: run.id, tenantId: run.tenant_id, jobId: run.job_id, status: outcome.runStatus },
    ]);
    if (outcome.runStatus === 'failed' && outcome.nextAttemptAt) {
      // It waits for its next attempt where its job's target is now.
      await enqueueRuns(deps.queue, pgExecutor(client), [
        {
          runId: lease.runId,
          route: routeOf({ type: held.target_type, queue: held.target_queue }, actor.tenantId, run.priority),
          scheduledTime: lease.scheduledTime,
          startAfter: outcome.nextAttemptAt,
        },
      ]);
    }
    return finished;
  });
  if (!rows) return notHeld(deps, actor, lease);
  return finishedRunView(rows);
}

/** The Run the completion answers, from finishPullAttempt's rows (one per attempt). */
function finishedRunView(rows: FinishedPullRunRow[]): RunView {
  const run = rows[0] as FinishedPullRunRow;
  const attempts: AttemptView[] = [];
  for (const a of rows) {
    if (a.a_attempt === null || a.a_status === null || a.a_started_at === null) continue;
    attempts.push({
      attempt: a.a_attempt,
      workerId: a.a_worker_id,
      startedAt: a.a_started_at.toISOString(),
      finishedAt: a.a_finished_at?.toISOString() ?? null,
      status: a.a_status,
      httpStatus: a.a_http_status,
      durationMs: a.a_duration_ms,
      error: a.a_error,
      responseSnippet: a.a_response_snippet,
      exitCode: a.a_exit_code,
    });
  }
  return toRunView({ ...run, sort_ts: '' }, attempts);
}
