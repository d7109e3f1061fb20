// Pull queues (docs/api.md "Pull queues"): a tenant's own workers claim the runs of `pull`
// targets, keep their leases alive and report how each attempt ended. This file: the claim. A
// claim takes due messages off the tenant's queue `p.<tenant>.<queue>` and leases their runs in
// one transaction (as engine workers do); a long-poll waits on the process's PullWakeups
// between tries. Heartbeat and completion: pull-leases.ts; the queue listing: pull-queue-list.ts.
import {
  claimPullRuns,
  type ClaimedPullRun,
  enqueueRuns,
  ensureQueues,
  pgExecutor,
  pullQueueNextDue,
  queueName,
  recordPullWorker,
  selectRunRoutes,
  skipOverlappingRuns,
  takeMessages,
} from '@belfry/db';
import { routeOf } from '@belfry/handlers/schemas';
import type { Actor, ServiceDeps } from '../context';
import type { ClaimBody, ClaimedRunView } from '../schemas/pull';
import type { RunView } from '../schemas/resources';
import { issueLeaseToken } from '../security/lease-tokens';
import { authorize } from '../security/scopes';
import { withTransaction } from '../sql/tx';
import { toRunView } from './run-rows';

export { completePullRun, heartbeatPullRun } from './pull-leases';
export { listPullQueues } from './pull-queue-list';

/** How long a long-poll sleeps between tries when this process has no wake-up listener. */
const FALLBACK_POLL_MS = 1_000;

function workerOf(actor: Actor, given: string | undefined): string {
  return given ?? `key:${actor.id ?? 'system'}`;
}

/**
 * Claims up to `max` due runs of the queue, waiting up to `waitSeconds` for one when none is
 * due. Never hands out a run before it is due (takeMessages takes only messages whose start time
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
          startedAt: r.attempt_started_at.toISOString(),
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
      const jobs = await takeMessages(client, name, body.max);
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
          pgExecutor(client),
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
