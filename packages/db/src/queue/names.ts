// pg-boss queue layout: one queue per tenant and priority, `t.<tenantId>.<priority>`, so a
// worker can rotate fairly over tenants and prefer higher priorities.
import type { Priority } from '@belfry/core';

export function queueName(tenantId: string, priority: Priority): string {
  return `t.${tenantId}.${priority}`;
}

export function parseQueueName(name: string): { tenantId: string; priority: Priority } | null {
  const m = /^t\.([A-Za-z0-9_]+)\.(high|normal|low)$/.exec(name);
  return m ? { tenantId: m[1] as string, priority: m[2] as Priority } : null;
}

/** The channel workers LISTEN on to learn which queue gets work, and when it is due. */
export const WAKE_CHANNEL = 'belfry_wake';

/**
 * The channel workers LISTEN on for runs cancelled while they hold them (payload: the run id),
 * so the attempt is aborted at once rather than at the next lease heartbeat — and a run
 * claimed ahead of its time is never delivered after a cancel.
 */
export const CANCEL_CHANNEL = 'belfry_cancel';
