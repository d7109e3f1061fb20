// Holds this node's share of scheduler partitions. Every tick it renews the leases it holds
// (fenced by epoch), learns how many scheduler nodes are alive, takes free or expired
// partitions up to its fair share and gives back the excess, so partitions spread evenly
// and a dead node's partitions are taken over within one lease period. A node that cannot
// renew (the database away or unreachable) stops scheduling a partition when its lease runs out
// by the node's own clock — counted from before the last renewal was sent, less a margin —
// without waiting to hear it from the database.
import { EventEmitter } from 'node:events';
import { performance } from 'node:perf_hooks';
import type pg from 'pg';
import type { Log } from '../logger';

export interface LeaseKeeperConfig {
  nodeId: string;
  leaseMs: number;
  /** how often to renew and rebalance; default leaseMs / 5 */
  tickMs?: number;
  /** nodes whose heartbeat is older than this are considered dead; default leaseMs */
  nodeTimeoutMs?: number;
  /**
   * how soon to try again while this node holds less than its fair share and no partition was
   * free to take (another node still holds the excess and gives it back on its own tick);
   * default min(250 ms, tickMs)
   */
  hungryTickMs?: number;
}

export interface OwnedPartition {
  partition: number;
  epoch: string; // bigint as text
}

export class LeaseKeeper extends EventEmitter<{
  acquired: [OwnedPartition[]];
  lost: [number[]];
  released: [number[]];
}> {
  private readonly owned = new Map<number, string>();
  /** per partition, until when (performance.now()) this node may act on it */
  private readonly validUntil = new Map<number, number>();
  private timer: NodeJS.Timeout | undefined;
  /** checks expiry by this node's clock even while a tick waits on a database that does not answer */
  private expiryTimer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;
  readonly tickMs: number;
  private readonly hungryTickMs: number;
  private readonly nodeTimeoutMs: number;
  /** below the fair share after the last tick: the next one comes after hungryTickMs */
  private hungry = false;
  /** since when (performance.now()) this node has been below its share without gaining a partition */
  private hungrySince: number | undefined;
  private hungryWarned = false;
  private ownedWhenHungry = 0;
  /** when (performance.now()) the leases were last renewed */
  private renewedAt = Number.NEGATIVE_INFINITY;
  takeovers = 0;
  private failures = 0;

  constructor(
    private readonly pool: pg.Pool,
    private readonly config: LeaseKeeperConfig,
    private readonly log: Log,
  ) {
    super();
    this.tickMs = config.tickMs ?? Math.max(500, Math.floor(config.leaseMs / 5));
    this.hungryTickMs = config.hungryTickMs ?? Math.min(250, this.tickMs);
    this.nodeTimeoutMs = config.nodeTimeoutMs ?? config.leaseMs;
  }

  /** The partitions this node currently holds, with the epoch every write must be fenced by. */
  partitions(): OwnedPartition[] {
    this.expireByOwnClock();
    return [...this.owned].map(([partition, epoch]) => ({ partition, epoch }));
  }

  /** Forget partitions a fenced write found we no longer own. */
  forget(partitions: number[]): void {
    const lost = partitions.filter((p) => this.drop(p));
    if (lost.length) this.emit('lost', lost);
  }

  private drop(partition: number): boolean {
    this.validUntil.delete(partition);
    return this.owned.delete(partition);
  }

  /** Leases are renewed for leaseMs from when the database ran the renewal; never trust all of it. */
  private validFrom(sentAt: number): number {
    return sentAt + this.config.leaseMs - Math.max(100, this.config.leaseMs / 10);
  }

  private expireByOwnClock(): void {
    const now = performance.now();
    const expired = [...this.validUntil].filter(([, until]) => until <= now).map(([p]) => p);
    if (!expired.length) return;
    for (const p of expired) this.drop(p);
    this.log.warn(
      { expired: expired.length, owned: this.owned.size },
      "partition leases expired by this node's own clock (not renewed in time); not scheduling those partitions",
    );
    this.emit('lost', expired);
  }

  async start(): Promise<void> {
    this.expiryTimer = setInterval(() => this.expireByOwnClock(), Math.max(100, Math.floor(this.tickMs / 2)));
    this.expiryTimer.unref();
    this.stopped = false;
    await this.tick();
    // While below its fair share this node looks again every hungryTickMs: a node that holds
    // more than its share gives the excess back on its own tick, and until someone takes them
    // those partitions have no scheduler (a new node's arrival, a rolling restart). Waiting a
    // whole tick for them left a third of the partitions unscheduled for up to 3 s.
    const loop = () => {
      if (this.stopped) return;
      // A normal tick comes no later than the next renewal is due.
      const untilRenewal = Math.max(0, this.renewedAt + this.tickMs - performance.now());
      this.timer = setTimeout(
        () => {
          this.running = this.tick().finally(loop);
        },
        this.hungry ? Math.min(this.hungryTickMs, untilRenewal) : Math.min(this.tickMs, untilRenewal),
      );
    };
    loop();
  }

  async tick(): Promise<void> {
    this.expireByOwnClock();
    try {
      // A hungry tick only looks for partitions; renewal keeps its own pace.
      if (!this.hungry || performance.now() - this.renewedAt >= this.tickMs) await this.renew();
      await this.rebalance();
      if (this.failures) this.log.info({ failures: this.failures }, 'lease ticks succeed again');
      this.failures = 0;
    } catch (err) {
      // A failing database is not asked again at the hungry pace.
      this.hungry = false;
      // Every tick is tried (renewing is what keeps the partitions); an outage logs once in full.
      if (++this.failures === 1) this.log.warn({ err }, 'lease tick failed');
      else this.log.debug({ err: (err as Error)?.message, failures: this.failures }, 'lease tick failed again');
    }
  }

  private async renew(): Promise<void> {
    const sentAt = performance.now();
    this.renewedAt = sentAt;
    if (this.owned.size === 0) return;
    const held = this.partitions();
    const { rows } = await this.pool.query<{ partition: number }>(
      // FOR NO KEY UPDATE (expires_at only changes) does not wait for the scheduler's fencing
      // lock, FOR KEY SHARE (lockPartitionLeases): a renewal must not queue behind scheduler
      // batches for longer than the lease lasts. Rows locked in partition order, as every
      // statement on these rows locks them: two statements locking the same rows in different
      // orders deadlock.
      `WITH mine AS (
         SELECT pl.partition FROM partition_leases pl
         JOIN unnest($1::int[], $2::bigint[]) AS o(partition, epoch) ON pl.partition = o.partition AND pl.epoch = o.epoch
         WHERE pl.owner = $3 AND pl.expires_at > now()
         ORDER BY pl.partition
         FOR NO KEY UPDATE OF pl
       )
       UPDATE partition_leases pl SET expires_at = now() + make_interval(secs => $4::float8 / 1000)
       FROM mine WHERE pl.partition = mine.partition AND pl.owner = $3 AND pl.expires_at > now()
       RETURNING pl.partition`,
      [held.map((h) => h.partition), held.map((h) => h.epoch), this.config.nodeId, this.config.leaseMs],
    );
    const kept = new Set(rows.map((r) => r.partition));
    for (const p of kept) if (this.owned.has(p)) this.validUntil.set(p, this.validFrom(sentAt));
    const lost = held.filter((h) => !kept.has(h.partition)).map((h) => h.partition);
    if (lost.length) {
      for (const p of lost) this.drop(p);
      this.log.warn({ lost: lost.length }, 'partition leases lost');
      this.emit('lost', lost);
    }
  }

  private async rebalance(): Promise<void> {
    const { rows } = await this.pool.query<{ total: number; live: string[] }>(
      `SELECT (SELECT count(*)::int FROM partition_leases) AS total,
              ARRAY(SELECT id FROM engine_nodes
                    WHERE 'scheduler' = ANY(roles) AND stopped_at IS NULL
                      AND heartbeat_at > now() - make_interval(secs => $1::float8 / 1000)
                    ORDER BY id) AS live`,
      [this.nodeTimeoutMs],
    );
    const fair = fairShare(rows[0]?.total ?? 0, rows[0]?.live ?? [], this.config.nodeId);
    if (this.owned.size < fair) {
      await this.acquire(fair - this.owned.size);
    } else if (this.owned.size > fair) {
      await this.release(this.partitions().slice(fair));
    }
    this.noteHunger(this.owned.size < fair, fair);
  }

  /**
   * Hungry ticks last while they can help: the excess comes back within a tick or two of a
   * node joining. A node still short after nodeTimeoutMs without gaining anything — nodes
   * disagreeing for a while about who is alive, say — goes back to the normal tick (it still
   * takes what comes free there) and says so once.
   */
  private noteHunger(short: boolean, fair: number): void {
    const now = performance.now();
    if (!short) {
      this.hungry = false;
      this.hungrySince = undefined;
      this.hungryWarned = false;
      return;
    }
    if (this.hungrySince === undefined || this.owned.size > this.ownedWhenHungry) this.hungrySince = now;
    this.ownedWhenHungry = this.owned.size;
    this.hungry = now - this.hungrySince < this.nodeTimeoutMs;
    if (!this.hungry && !this.hungryWarned) {
      this.hungryWarned = true;
      this.log.warn(
        { owned: this.owned.size, fair, waitedMs: Math.round(now - this.hungrySince) },
        'below the fair share of partitions with none coming free; looking again at the normal tick',
      );
    }
  }

  /**
   * Takes free or expired partitions, bumping their epoch. FOR UPDATE conflicts with the fencing
   * lock (FOR KEY SHARE) of a scheduler transaction still open on a partition — its previous
   * owner's, maybe paused past the lease — so SKIP LOCKED passes it by until the next tick;
   * and changing epoch (a column of the unique (partition, epoch) index) needs FOR UPDATE anyway.
   */
  private async acquire(count: number): Promise<void> {
    const sentAt = performance.now();
    const { rows } = await this.pool.query<{ partition: number; epoch: string; previous: string | null }>(
      `WITH free AS (
         SELECT partition, owner FROM partition_leases
         WHERE owner IS NULL OR expires_at IS NULL OR expires_at < now()
         ORDER BY partition
         LIMIT $2
         FOR UPDATE SKIP LOCKED
       )
       UPDATE partition_leases pl
       SET owner = $1, epoch = pl.epoch + 1, expires_at = now() + make_interval(secs => $3::float8 / 1000)
       FROM free WHERE pl.partition = free.partition
       RETURNING pl.partition, pl.epoch::text AS epoch, free.owner AS previous`,
      [this.config.nodeId, count, this.config.leaseMs],
    );
    if (!rows.length) return;
    for (const r of rows) {
      this.owned.set(r.partition, r.epoch);
      this.validUntil.set(r.partition, this.validFrom(sentAt));
    }
    const takenOver = rows.filter((r) => r.previous && r.previous !== this.config.nodeId).length;
    this.takeovers += takenOver;
    this.log.info({ acquired: rows.length, takenOver, owned: this.owned.size }, 'partitions acquired');
    this.emit(
      'acquired',
      rows.map((r) => ({ partition: r.partition, epoch: r.epoch })),
    );
  }

  /**
   * Hands partitions back: owner NULL, epoch unchanged. It does not wait for this node's own
   * scheduler transactions still open on them (their fencing lock is FOR KEY SHARE); that is
   * safe because whoever takes a partition next bumps its epoch, which waits for those
   * transactions, and a later scheduler transaction of this node finds the owner gone.
   */
  private async release(partitions: OwnedPartition[]): Promise<void> {
    if (!partitions.length) return;
    await this.pool.query(
      `WITH mine AS (
         SELECT pl.partition FROM partition_leases pl
         JOIN unnest($1::int[], $2::bigint[]) AS o(partition, epoch) ON pl.partition = o.partition AND pl.epoch = o.epoch
         WHERE pl.owner = $3
         ORDER BY pl.partition
         FOR NO KEY UPDATE OF pl
       )
       UPDATE partition_leases pl SET owner = NULL, expires_at = NULL
       FROM mine WHERE pl.partition = mine.partition AND pl.owner = $3`,
      [partitions.map((p) => p.partition), partitions.map((p) => p.epoch), this.config.nodeId],
    );
    for (const p of partitions) this.drop(p.partition);
    this.log.info({ released: partitions.length, owned: this.owned.size }, 'partitions released');
    this.emit(
      'released',
      partitions.map((p) => p.partition),
    );
  }

  /** Stop renewing and hand every partition back, so others take over at once. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.expiryTimer) clearInterval(this.expiryTimer);
    await this.running?.catch(() => {});
    await this.release(this.partitions()).catch((err) => this.log.warn({ err }, 'could not release leases'));
  }
}

/**
 * This node's share of `total` partitions among the live scheduler nodes: an even split, the
 * remainder going one each to the first nodes by id (16 over 3 nodes: 6, 5, 5), so every node
 * is within one of the others. A node not (yet) seen alive counts itself in, last.
 */
export function fairShare(total: number, live: string[], nodeId: string): number {
  const rank = live.includes(nodeId) ? live.indexOf(nodeId) : live.length;
  const nodes = live.includes(nodeId) ? live.length : live.length + 1;
  return Math.floor(total / nodes) + (rank < total % nodes ? 1 : 0);
}
