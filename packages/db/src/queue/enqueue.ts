// Puts runs on their queue (see names.ts: by tenant, lane and priority, or pull queue name)
// inside the caller's transaction (the run row and its message commit together or not at all),
// and tells workers when each queue next has work. Callers route each run by its job's target
// kind (routeOf in @belfry/handlers/schemas).
import type { QueueClient } from './client';
import { ensureQueues } from './client';
import type { QueueRoute } from '@belfry/core';
import { queueName, WAKE_CHANNEL } from './names';

/** Anything that runs SQL on the caller's transaction (a pg client inside BEGIN, a Prisma tx). */
export interface SqlExecutor {
  executeSql(text: string, values?: unknown[]): Promise<{ rows: unknown[] }>;
}

export interface RunMessage {
  runId: string;
  scheduledTime: string; // ISO; with runId it addresses the run row (its partition key)
  /** set for scheduled runs of overlap-skip jobs: only those need the overlap check on claim */
  overlap?: true;
}

export interface EnqueueItem {
  runId: string;
  /** which queue: the run's tenant, its target kind's lane, and its priority or pull queue */
  route: QueueRoute;
  scheduledTime: Date;
  /** when the run may start; default scheduledTime */
  startAfter?: Date;
  /** the job's overlap policy is 'skip' (scheduled runs only) */
  overlapSkip?: boolean;
}

export interface WakeHint {
  q: string;
  at: number; // epoch ms when some of the queue's new messages become runnable
}

export async function enqueueRuns(boss: QueueClient, executor: SqlExecutor, items: EnqueueItem[]): Promise<void> {
  if (!items.length) return;
  const byQueue = new Map<string, EnqueueItem[]>();
  for (const item of items) {
    const name = queueName(item.route);
    const list = byQueue.get(name);
    if (list) list.push(item);
    else byQueue.set(name, [item]);
  }
  await ensureQueues(boss, byQueue.keys());
  const hints: WakeHint[] = [];
  for (const [name, list] of byQueue) {
    // One hint per distinct start time, not just the earliest: a worker that only heard of the
    // first would not wake for the later ones (scheduled times are mostly whole seconds, so
    // there are few).
    const times = new Set<number>();
    await boss.insert(
      name,
      list.map((item) => {
        const startAfter = item.startAfter ?? item.scheduledTime;
        times.add(startAfter.getTime());
        const data: RunMessage = {
          runId: item.runId,
          scheduledTime: item.scheduledTime.toISOString(),
          ...(item.overlapSkip ? { overlap: true as const } : {}),
        };
        return { data, startAfter };
      }),
      { db: executor },
    );
    for (const at of times) hints.push({ q: name, at });
  }
  await notifyWorkers(executor, hints);
}

/** NOTIFY is transactional: workers hear of the work only if the caller commits. */
export async function notifyWorkers(executor: SqlExecutor, hints: WakeHint[]): Promise<void> {
  // A NOTIFY payload is limited to 8000 bytes; split long lists.
  for (let i = 0; i < hints.length; i += 80) {
    await executor.executeSql('SELECT pg_notify($1, $2)', [WAKE_CHANNEL, JSON.stringify(hints.slice(i, i + 80))]);
  }
}

/** Adapts a node-postgres client (inside BEGIN ... COMMIT) to the executor pg-boss expects. */
export function pgExecutor(client: {
  query(text: string, values?: unknown[]): Promise<{ rows: unknown[] }>;
}): SqlExecutor {
  return { executeSql: (text, values) => client.query(text, values) };
}
