// The pg-boss instance a process uses to enqueue (web, engine); claims take messages with their
// own statement (take.ts). Queues are created on first use and remembered; their options keep
// pg-boss small, because the runs table, not pg-boss, is the history.
import { PgBoss } from 'pg-boss';

export type QueueClient = PgBoss;

export const QUEUE_OPTIONS = {
  policy: 'standard',
  // A claim deletes its messages without ever making them 'active' (take.ts), so pg-boss's expiry
  // and retries never apply to them: the run's own lease covers a worker that dies.
  expireInSeconds: 60,
  retryLimit: 20,
  retryDelay: 1,
  deleteAfterSeconds: 300,
} as const;

export interface QueueClientOptions {
  /** run pg-boss's supervisor (expiry, cleanup): engine nodes yes, web no */
  supervise?: boolean;
  max?: number;
  onError?: (err: Error) => void;
}

const known = new WeakMap<PgBoss, Set<string>>();

export async function createQueueClient(url: string, options: QueueClientOptions = {}): Promise<QueueClient> {
  const boss = new PgBoss({
    connectionString: url,
    max: options.max ?? 5,
    supervise: options.supervise ?? false,
    schedule: false,
    migrate: true,
    registerInstance: false,
    superviseIntervalSeconds: 15,
    monitorIntervalSeconds: 15,
    maintenanceIntervalSeconds: 300,
    application_name: 'belfry-queue',
    // No connection startup options (a transaction pooler such as PgBouncer refuses them), and
    // none needed: pg-boss sends each of its own transactions (createQueue's advisory lock
    // included) as one message that begins with SET LOCAL idle_in_transaction_session_timeout,
    // so a stopped client never leaves one open; fetches run in the engine's transactions.
  });
  boss.on('error', options.onError ?? (() => {}));
  await boss.start();
  known.set(boss, new Set());
  return boss;
}

/** Creates the queues that do not exist yet (idempotent; runs on pg-boss's own connection). */
export async function ensureQueues(boss: QueueClient, names: Iterable<string>): Promise<void> {
  let cache = known.get(boss);
  if (!cache) {
    cache = new Set();
    known.set(boss, cache);
  }
  const missing = [...names].filter((n) => !cache.has(n));
  if (!missing.length) return;
  // Most queues exist already (created by another process); only create the rest, since
  // createQueue serialises on an advisory lock.
  for (const q of await boss.getQueues(missing)) cache.add(q.name);
  for (const name of missing) {
    if (cache.has(name)) continue;
    await boss.createQueue(name, { ...QUEUE_OPTIONS });
    cache.add(name);
  }
}
