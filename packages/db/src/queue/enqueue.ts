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

/**
 * Runs of one engine queue that share their scheduled and start times (and overlap policy),
 * carried by one message: a herd's or a cron second's runs cost one queue row per
 * RUNS_PER_MESSAGE instead of one each (the row, its index entries and their WAL; a message
 * per run was a fifth of a herd's database time). takeMessages hands its runs out one by one,
 * and splits it when a claim has room for only some of them. Pull queues keep one message per
 * run: their depth and claims are the tenant's to see run by run.
 */
export interface RunBatchMessage {
  runIds: string[];
  scheduledTime: string;
  overlap?: true;
}

/** At most this many runs per message (an engine worker claims up to 50 at a time). */
export const RUNS_PER_MESSAGE = 50;

/** SQL: how many runs the pgboss.job row `alias` carries (a RunMessage carries one); belfry_take_many (migration 20261207150000) spells it out the same way. */
export const runsInMessage = (alias: string): string => `COALESCE(jsonb_array_length(${alias}.data->'runIds'), 1)`;

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
    const messages: Array<{ data: RunMessage | RunBatchMessage; startAfter: Date }> = [];
    for (const group of messageGroups(list)) {
      const first = group[0] as EnqueueItem;
      const startAfter = first.startAfter ?? first.scheduledTime;
      times.add(startAfter.getTime());
      const scheduledTime = first.scheduledTime.toISOString();
      const overlap = first.overlapSkip ? { overlap: true as const } : {};
      messages.push({
        data:
          group.length === 1
            ? { runId: first.runId, scheduledTime, ...overlap }
            : { runIds: group.map((item) => item.runId), scheduledTime, ...overlap },
        startAfter,
      });
    }
    await boss.insert(name, messages, { db: executor });
    for (const at of times) hints.push({ q: name, at });
  }
  await notifyWorkers(executor, hints);
}

/**
 * One queue's runs as messages: runs that share their scheduled time, start time and overlap
 * flag, RUNS_PER_MESSAGE at most, together (in their given order); a pull queue's one by one.
 */
function messageGroups(list: EnqueueItem[]): EnqueueItem[][] {
  if (list[0]?.route.lane === 'pull') return list.map((item) => [item]);
  const groups = new Map<string, EnqueueItem[]>();
  const out: EnqueueItem[][] = [];
  for (const item of list) {
    const key = `${item.scheduledTime.getTime()}/${(item.startAfter ?? item.scheduledTime).getTime()}/${item.overlapSkip ? 1 : 0}`;
    let group = groups.get(key);
    if (!group || group.length >= RUNS_PER_MESSAGE) {
      group = [];
      groups.set(key, group);
      out.push(group);
    }
    group.push(item);
  }
  return out;
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
