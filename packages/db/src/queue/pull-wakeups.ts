// Wakes long-polling pull-queue claims (POST /api/v1/queues/{queue}/claim with waitSeconds)
// within moments of a run becoming due. Every enqueue NOTIFYs `belfry_wake` with the queue and
// when its new messages become runnable (enqueue.ts), in the producer's transaction; each web
// process LISTENs on one connection of its own, so any number of web nodes hear every hint.
// A waiter also wakes at the due time of what already waited in its queue (the claim tells
// it) and, as a safety net for a lost notification or a dropped listener, after `pollMs`.
import pg from 'pg';
import { lanePrefix, WAKE_CHANNEL } from './names';
import type { WakeHint } from './enqueue';

export interface PullWakeupsOptions {
  /** a direct (session) connection: LISTEN does not work through a transaction pooler */
  url: string;
  /** the longest a waiter sleeps without a hint while the listener is connected */
  pollMs?: number;
  /** ... and while it is not */
  disconnectedPollMs?: number;
  onError?: (err: unknown) => void;
  /** the listener is connected and listening (again, after an error) */
  onListening?: () => void;
}

interface Waiter {
  queue: string;
  timer: NodeJS.Timeout | undefined;
  at: number;
  resolve: () => void;
}

/** A wait that ends at the earliest of: a due hint for its queue, wakeAt(), its deadline. */
export interface PullWait {
  /** also wake at this time (epoch ms), if it is earlier */
  wakeAt(at: number): void;
  done: Promise<void>;
  cancel(): void;
}

export class PullWakeups {
  private client: pg.Client | undefined;
  private readonly waiters = new Map<string, Set<Waiter>>();
  private stopped = true;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private readonly pollMs: number;
  private readonly disconnectedPollMs: number;

  constructor(private readonly options: PullWakeupsOptions) {
    this.pollMs = options.pollMs ?? 5_000;
    this.disconnectedPollMs = options.disconnectedPollMs ?? 1_000;
  }

  /** Starts listening; a failure is reported (onError) and retried, waiters poll meanwhile. */
  async start(): Promise<void> {
    this.stopped = false;
    try {
      await this.listen();
    } catch (err) {
      this.options.onError?.(err);
      this.scheduleListen(1_000);
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    for (const set of this.waiters.values()) for (const w of set) this.finish(w);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => {});
  }

  /** Waits for work in `queueName` (a full pg-boss name, `p.<tenant>.<queue>`) until `deadline` (epoch ms). */
  wait(queueName: string, deadline: number): PullWait {
    let resolve!: () => void;
    const done = new Promise<void>((r) => {
      resolve = r;
    });
    const waiter: Waiter = { queue: queueName, timer: undefined, at: Number.POSITIVE_INFINITY, resolve };
    let set = this.waiters.get(queueName);
    if (!set) {
      set = new Set();
      this.waiters.set(queueName, set);
    }
    set.add(waiter);
    const poll = this.client ? this.pollMs : this.disconnectedPollMs;
    this.arm(waiter, Math.min(deadline, Date.now() + poll));
    return {
      wakeAt: (at) => this.arm(waiter, at),
      done,
      cancel: () => this.finish(waiter),
    };
  }

  private arm(waiter: Waiter, at: number): void {
    if (at >= waiter.at) return;
    if (waiter.timer) clearTimeout(waiter.timer);
    waiter.at = at;
    // A few milliseconds late rather than early: pg-boss compares start_after with the
    // database's now().
    waiter.timer = setTimeout(() => this.finish(waiter), Math.max(0, at - Date.now() + 5));
  }

  private finish(waiter: Waiter): void {
    if (waiter.timer) clearTimeout(waiter.timer);
    waiter.timer = undefined;
    const set = this.waiters.get(waiter.queue);
    if (set?.delete(waiter) && set.size === 0) this.waiters.delete(waiter.queue);
    waiter.resolve();
  }

  private hint(h: WakeHint): void {
    const set = this.waiters.get(h.q);
    if (!set) return;
    for (const w of [...set]) {
      if (h.at <= Date.now()) this.finish(w);
      else this.arm(w, h.at);
    }
  }

  private async listen(): Promise<void> {
    const client = new pg.Client({ connectionString: this.options.url, application_name: 'belfry-pull-wakeups' });
    client.on('error', (err) => {
      this.options.onError?.(err);
      this.reconnect(client);
    });
    client.on('end', () => this.reconnect(client));
    client.on('notification', (msg) => {
      if (msg.channel !== WAKE_CHANNEL || !msg.payload) return;
      let hints: WakeHint[];
      try {
        hints = JSON.parse(msg.payload) as WakeHint[];
      } catch (err) {
        this.options.onError?.(err);
        return;
      }
      const prefix = lanePrefix('pull');
      for (const h of hints) if (typeof h.q === 'string' && h.q.startsWith(prefix)) this.hint(h);
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${WAKE_CHANNEL}`);
    } catch (err) {
      void client.end().catch(() => {});
      throw err;
    }
    if (this.stopped) {
      await client.end().catch(() => {});
      return;
    }
    this.client = client;
    this.options.onListening?.();
  }

  private reconnect(failed: pg.Client): void {
    if (this.stopped || this.client !== failed) return;
    this.client = undefined;
    void failed.end().catch(() => {});
    // Everyone waiting may have missed a hint while the listener was down.
    for (const set of this.waiters.values()) for (const w of [...set]) this.finish(w);
    this.scheduleListen(200);
  }

  private scheduleListen(delayMs: number): void {
    const retry = () => {
      this.reconnectTimer = undefined;
      if (this.stopped) return;
      this.listen().catch((err) => {
        this.options.onError?.(err);
        this.reconnectTimer = setTimeout(retry, 1_000);
      });
    };
    this.reconnectTimer = setTimeout(retry, delayMs);
    this.reconnectTimer.unref();
  }
}
