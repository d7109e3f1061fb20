// Queue layout: one pg-boss queue per tenant, lane and priority — `t.<tenant>.<priority>` for
// the push lane, `c.<tenant>.<priority>` for containers — so a worker rotates fairly over
// tenants, prefers higher priorities and fetches only the lanes it serves; pull runs wait in
// `p.<tenant>.<queue>`, by the pull target's queue name, where only the tenant's own workers
// (through the REST API) claim them.
import type { Lane, Priority, QueueRoute } from '@belfry/core';

const PREFIX = { push: 't', container: 'c', pull: 'p' } as const satisfies Record<Lane, string>;

export function queueName(route: QueueRoute): string {
  if (route.lane === 'pull') return `${PREFIX.pull}.${route.tenantId}.${route.queue}`;
  return `${PREFIX[route.lane]}.${route.tenantId}.${route.priority}`;
}

const WORKER_QUEUE = /^([tc])\.([A-Za-z0-9_]+)\.(high|normal|low)$/;
const PULL_QUEUE = /^p\.([A-Za-z0-9_]+)\.([A-Za-z0-9._-]{1,100})$/;

export function parseQueueName(name: string): QueueRoute | null {
  const w = WORKER_QUEUE.exec(name);
  if (w) {
    return { lane: w[1] === 't' ? 'push' : 'container', tenantId: w[2] as string, priority: w[3] as Priority };
  }
  const p = PULL_QUEUE.exec(name);
  return p ? { lane: 'pull', tenantId: p[1] as string, queue: p[2] as string } : null;
}

/** What every queue name of a lane starts with (`t.` for push). */
export function lanePrefix(lane: Lane): string {
  return `${PREFIX[lane]}.`;
}

/** The channel workers LISTEN on to learn which queue gets work, and when it is due. */
export const WAKE_CHANNEL = 'belfry_wake';

/**
 * The channel workers LISTEN on for runs cancelled while they hold them (payload: the run id),
 * so the attempt is aborted at once rather than at the next lease heartbeat — and a run
 * claimed ahead of its time is never delivered after a cancel.
 */
export const CANCEL_CHANNEL = 'belfry_cancel';
