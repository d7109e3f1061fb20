// Knows which queues have work and when. Producers NOTIFY `belfry_wake` with {queue, due}
// in the same transaction as the messages (see @belfry/db enqueue); this listens, arms one
// timer for the earliest future due time, and marks queues ready when their time comes. A
// periodic discovery query is the safety net for anything a notification missed (listener
// reconnects, messages pg-boss itself put back after expiry).
import { EventEmitter } from 'node:events';
import pg from 'pg';
import { WAKE_CHANNEL, type WakeHint } from '@belfry/db';
import type { Log } from '../logger';
import type { DbClock } from '../db-clock';

export interface WakeupsConfig {
  url: string;
  discoveryMs: number;
}

export class Wakeups extends EventEmitter<{ ready: [string[]] }> {
  private listener: pg.Client | undefined;
  private readonly pending = new Map<string, number>(); // queue -> earliest due (db ms)
  private timer: NodeJS.Timeout | undefined;
  private timerAt = Number.POSITIVE_INFINITY;
  private discoveryTimer: NodeJS.Timeout | undefined;
  private stopped = false;
  private reconnectDelay = 500;

  constructor(
    private readonly pool: pg.Pool,
    private readonly clock: DbClock,
    private readonly config: WakeupsConfig,
    private readonly log: Log,
  ) {
    super();
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
    await this.listener?.end().catch(() => {});
  }

  /** Queue work known to be due at `at` (db clock ms). */
  hint(queue: string, at: number): void {
    const now = this.clock.now();
    if (at <= now) {
      this.pending.delete(queue);
      this.emit('ready', [queue]);
      return;
    }
    const existing = this.pending.get(queue);
    if (existing === undefined || at < existing) this.pending.set(queue, at);
    this.arm();
  }

  private arm(): void {
    let earliest = Number.POSITIVE_INFINITY;
    for (const at of this.pending.values()) earliest = Math.min(earliest, at);
    if (earliest === Number.POSITIVE_INFINITY || earliest >= this.timerAt) return;
    if (this.timer) clearTimeout(this.timer);
    this.timerAt = earliest;
    this.timer = setTimeout(() => this.fire(), Math.max(0, earliest - this.clock.now()));
  }

  private fire(): void {
    this.timer = undefined;
    this.timerAt = Number.POSITIVE_INFINITY;
    const now = this.clock.now();
    const ready: string[] = [];
    for (const [queue, at] of this.pending) {
      if (at <= now + 1) {
        ready.push(queue);
        this.pending.delete(queue);
      }
    }
    if (ready.length) this.emit('ready', ready);
    this.arm();
  }

  private async listen(): Promise<void> {
    const client = new pg.Client({ connectionString: this.config.url, application_name: 'belfry-wakeups' });
    client.on('error', (err) => {
      this.log.warn({ err }, 'wake listener lost; reconnecting');
      this.reconnect();
    });
    client.on('notification', (msg) => {
      if (msg.channel !== WAKE_CHANNEL || !msg.payload) return;
      try {
        for (const h of JSON.parse(msg.payload) as WakeHint[]) this.hint(h.q, h.at);
      } catch (err) {
        this.log.warn({ err }, 'bad wake payload');
      }
    });
    await client.connect();
    await client.query(`LISTEN ${WAKE_CHANNEL}`);
    this.listener = client;
    this.reconnectDelay = 500;
  }

  private reconnect(): void {
    if (this.stopped) return;
    const old = this.listener;
    this.listener = undefined;
    void old?.end().catch(() => {});
    setTimeout(() => {
      if (this.stopped) return;
      this.listen()
        .then(() => this.discover())
        .catch((err) => {
          this.log.warn({ err }, 'wake listener reconnect failed');
          this.reconnectDelay = Math.min(this.reconnectDelay * 2, 10_000);
          this.reconnect();
        });
    }, this.reconnectDelay);
  }

  /** Finds queues with runnable or soon-runnable messages (loose index scan over pg-boss's fetch index). */
  async discover(): Promise<void> {
    try {
      const { rows } = await this.pool.query<{ name: string; at: Date }>(
        `WITH RECURSIVE q AS (
           (SELECT name FROM pgboss.job WHERE state < 'active' AND NOT blocked AND name LIKE 't.%' ORDER BY name LIMIT 1)
           UNION ALL
           SELECT (SELECT j.name FROM pgboss.job j WHERE j.state < 'active' AND NOT j.blocked AND j.name > q.name
                   ORDER BY j.name LIMIT 1)
           FROM q WHERE q.name IS NOT NULL
         )
         SELECT q.name, (SELECT min(j.start_after) FROM pgboss.job j
                         WHERE j.name = q.name AND j.state < 'active' AND NOT j.blocked) AS at
         FROM q WHERE q.name IS NOT NULL`,
      );
      for (const r of rows) this.hint(r.name, r.at.getTime());
    } catch (err) {
      this.log.warn({ err }, 'queue discovery failed');
    }
  }
}
