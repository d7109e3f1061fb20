// Knows which queues have work and when. Producers NOTIFY `belfry_wake` with {queue, due}
// in the same transaction as the messages (see @belfry/db enqueue); this listens, keeps every
// future due time (a queue often has messages due at several times), arms one timer for the
// earliest, and marks queues ready when their time comes. A periodic discovery query is the
// safety net for anything a notification missed (listener reconnects, messages pg-boss
// itself put back after expiry).
import { EventEmitter } from 'node:events';
import pg from 'pg';
import { CANCEL_CHANNEL, discoverQueues, WAKE_CHANNEL, type WakeHint } from '@belfry/db';
import { Backoff, type WorkerLane } from '@belfry/core';
import { FailureStreak } from '@belfry/log';
import type { Log } from '../logger';
import type { DbClock } from '../db-clock';

export interface WakeupsConfig {
  url: string;
  discoveryMs: number;
  /** the lanes whose queues discovery looks at (the lanes this node's workers serve) */
  lanes: readonly WorkerLane[];
}

/** Timers fire this long after a due time (see arm()). */
export const WAKE_SLACK_MS = 2;

export class Wakeups extends EventEmitter<{ ready: [string[]]; cancel: [string] }> {
  private listener: pg.Client | undefined;
  private readonly pending = new DueHeap(); // (due db ms, queue), earliest first
  private timer: NodeJS.Timeout | undefined;
  private timerAt = Number.POSITIVE_INFINITY;
  private discoveryTimer: NodeJS.Timeout | undefined;
  private stopped = false;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private readonly reconnectBackoff = new Backoff({ initialMs: 250, maxMs: 5_000 });
  private readonly discoveryFailures: FailureStreak;

  constructor(
    private readonly pool: pg.Pool,
    private readonly clock: DbClock,
    private readonly config: WakeupsConfig,
    private readonly log: Log,
  ) {
    super();
    this.discoveryFailures = new FailureStreak(log, 'queue discovery', 'warn');
  }

  async start(): Promise<void> {
    this.stopped = false;
    await this.listen();
    await this.discover();
    const loop = () => {
      if (this.stopped) return;
      this.discoveryTimer = setTimeout(() => void this.discover().finally(loop), this.config.discoveryMs);
    };
    loop();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.discoveryTimer) clearTimeout(this.discoveryTimer);
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    const listener = this.listener;
    this.listener = undefined;
    await listener?.end().catch(() => {});
  }

  /** Queue work known to be due at `at` (db clock ms). */
  hint(queue: string, at: number): void {
    if (at <= this.clock.now()) {
      this.emit('ready', [queue]);
      return;
    }
    this.pending.push(at, queue);
    this.arm();
  }

  private arm(): void {
    const earliest = this.pending.peek()?.at ?? Number.POSITIVE_INFINITY;
    if (earliest === Number.POSITIVE_INFINITY || earliest >= this.timerAt) return;
    if (this.timer) clearTimeout(this.timer);
    this.timerAt = earliest;
    // A couple of milliseconds late rather than early: pg-boss compares start_after with the
    // database's now(), and a fetch that comes up empty would wait for the next discovery.
    this.timer = setTimeout(() => this.fire(), Math.max(0, earliest - this.clock.now() + WAKE_SLACK_MS));
  }

  private fire(): void {
    this.timer = undefined;
    this.timerAt = Number.POSITIVE_INFINITY;
    const now = this.clock.now();
    const ready = new Set<string>();
    while ((this.pending.peek()?.at ?? Number.POSITIVE_INFINITY) <= now + 1) ready.add(this.pending.pop()!.queue);
    if (ready.size) this.emit('ready', [...ready]);
    this.arm();
  }

  /**
   * A session of its own that LISTENs on both channels. When it is lost (the server restarted,
   * the backend was terminated) it is replaced — once, however many errors the old one emits —
   * after a jittered, growing delay, and a discovery pass finds what came due meanwhile.
   */
  private async listen(): Promise<void> {
    const client = new pg.Client({ connectionString: this.config.url, application_name: 'belfry-wakeups' });
    const lost = (err: Error) => {
      if (this.listener !== client) return; // a failed connect rejects listen() instead
      this.listener = undefined;
      void client.end().catch(() => {});
      this.log.warn({ err }, 'wake listener lost; reconnecting');
      this.reconnect();
    };
    client.on('error', lost);
    client.on('end', () => lost(new Error('LISTEN connection ended')));
    client.on('notification', (msg) => {
      if (msg.channel === CANCEL_CHANNEL && msg.payload) {
        this.emit('cancel', msg.payload);
        return;
      }
      if (msg.channel !== WAKE_CHANNEL || !msg.payload) return;
      try {
        for (const h of JSON.parse(msg.payload) as WakeHint[]) this.hint(h.q, h.at);
      } catch (err) {
        this.log.warn({ err }, 'bad wake payload');
      }
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${WAKE_CHANNEL}; LISTEN ${CANCEL_CHANNEL}`);
    } catch (err) {
      await client.end().catch(() => {});
      throw err;
    }
    if (this.stopped) {
      await client.end().catch(() => {});
      return;
    }
    this.listener = client;
  }

  private reconnect(): void {
    if (this.stopped || this.reconnectTimer) return;
    const delayMs = this.reconnectBackoff.fail();
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      if (this.stopped) return;
      this.listen()
        .then(() => {
          this.log.info({ tries: this.reconnectBackoff.streak }, 'wake listener subscribed again');
          this.reconnectBackoff.succeed();
          return this.discover();
        })
        .catch((err) => {
          if (this.reconnectBackoff.streak === 1) this.log.warn({ err }, 'wake listener reconnect failed');
          this.reconnect();
        });
    }, delayMs);
  }

  /** Hints every queue that has waiting messages, at its earliest and its next future time. */
  async discover(): Promise<void> {
    try {
      for (const q of await discoverQueues(this.pool, this.config.lanes)) {
        this.hint(q.name, q.at.getTime());
        if (q.next) this.hint(q.name, q.next.getTime());
      }
      this.discoveryFailures.succeeded();
    } catch (err) {
      this.discoveryFailures.failed(err);
    }
  }
}

/** A binary min-heap of (due time, queue), each pair held once (discovery repeats hints). */
class DueHeap {
  private readonly items: { at: number; queue: string }[] = [];
  private readonly held = new Set<string>();

  peek(): { at: number; queue: string } | undefined {
    return this.items[0];
  }

  push(at: number, queue: string): void {
    const key = `${at}@${queue}`;
    if (this.held.has(key)) return;
    this.held.add(key);
    const items = this.items;
    items.push({ at, queue });
    let i = items.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (items[parent]!.at <= items[i]!.at) break;
      [items[parent], items[i]] = [items[i]!, items[parent]!];
      i = parent;
    }
  }

  pop(): { at: number; queue: string } | undefined {
    const items = this.items;
    const top = items[0];
    if (top) this.held.delete(`${top.at}@${top.queue}`);
    const last = items.pop();
    if (!items.length || !last) return top;
    items[0] = last;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < items.length && items[l]!.at < items[m]!.at) m = l;
      if (r < items.length && items[r]!.at < items[m]!.at) m = r;
      if (m === i) return top;
      [items[m], items[i]] = [items[i]!, items[m]!];
      i = m;
    }
  }
}
