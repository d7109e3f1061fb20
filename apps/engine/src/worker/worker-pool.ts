// The worker side of a node: for each lane it serves, fetches due messages from the queues that
// have work, fairly across tenants (ReadyQueues), within the lane's slots and each tenant's
// concurrency share; claims their runs (claim.ts), executes them (execute.ts), heartbeats the
// leases (heartbeat.ts) and records outcomes (complete.ts). Which kinds exist is the handler
// registry's business: adding one does not touch this file.
import type { Priority, WorkerLane } from '@belfry/core';
import { type ClaimedRun, parseQueueName, queueName } from '@belfry/db';
import type { Log } from '../logger';
import { ClaimPause } from './claim-pause';
import { LaneSlots } from './lane-slots';
import { claimFromQueues } from './claim';
import { CompletionBatcher } from './completions';
import { completeAttempt } from './complete';
import { type Execution, type ExecuteDeps, executeAttempt } from './execute';
import { LeaseHeartbeat } from './heartbeat';
import type { StopReason } from './outcome';
import { type LaneConfig, MAX_CLAIMS, QUEUES_PER_CLAIM, type WorkerPoolOptions } from './pool-options';
import { ReadyQueues } from './ready-queues';
import { StartGate } from './start-gate';

export type { LaneConfig, WorkerConfig, WorkerPoolOptions } from './pool-options';

/** A queue picked for a claim, with the room reserved for it. */
interface Pick {
  queue: string;
  tenantId: string;
  priority: Priority;
  room: number;
}

interface Lane extends LaneConfig {
  ready: ReadyQueues;
  /** executing, waiting for their due time, and reserved by fetches in flight (lane-slots.ts) */
  counts: LaneSlots;
}

export class WorkerPool {
  private readonly lanes = new Map<WorkerLane, Lane>();
  private readonly inflight = new Map<string, Execution>();
  private readonly tenantInflight = new Map<string, number>(); // running and reserved by fetches
  private readonly claiming = new Set<string>(); // queues with a claim in flight
  private readonly claims = new Set<Promise<void>>(); // claim transactions in flight
  private readonly emptyRetries = new Map<string, number>(); // queue -> when it was last re-checked
  private pumping = false;
  private pumpScheduled = false;
  private again = false;
  private stopping = false;
  private readonly claimPause: ClaimPause;
  private readonly completions: CompletionBatcher;
  private readonly heartbeat: LeaseHeartbeat;
  private readonly executeDeps: ExecuteDeps;

  constructor(private readonly o: WorkerPoolOptions) {
    for (const l of o.config.lanes)
      this.lanes.set(l.lane, { ...l, ready: new ReadyQueues(), counts: new LaneSlots(l.slots) });
    this.executeDeps = {
      handlers: o.handlers,
      secrets: o.secrets,
      clock: o.clock,
      gate: new StartGate(o.pool, o.config.workerId, o.log),
      onStart: (lag, tenantId) => o.metrics?.recordLag(lag, tenantId),
      admit: (execution) => this.admit(execution),
    };
    this.claimPause = new ClaimPause(() => this.pump(), o.log);
    this.completions = new CompletionBatcher(o.pool, o.boss, o.config.workerId, o.log);
    this.heartbeat = new LeaseHeartbeat(
      o.pool,
      { workerId: o.config.workerId, runLeaseMs: o.config.runLeaseMs, intervalMs: o.config.heartbeatMs },
      () => this.inflight.values(),
      (runId) => this.interrupt(runId, 'lease-lost', 'run was cancelled or its lease was lost'),
      o.log,
    );
  }

  get inFlight(): number {
    return this.inflight.size;
  }

  start(): void {
    this.stopping = false;
    this.o.wakeups.on('ready', (queues) => {
      for (const q of queues) this.markReady(q);
      this.pump();
    });
    this.o.wakeups.on('cancel', (runId) => this.interrupt(runId, 'cancelled', 'run was cancelled'));
    this.heartbeat.start();
  }

  private markReady(queue: string): void {
    const route = parseQueueName(queue);
    if (!route || route.lane === 'pull') return; // pull runs are the tenant's workers' to claim
    this.lanes.get(route.lane)?.ready.mark(route.tenantId, route.priority);
  }

  /** Fetch-and-claim until slots or ready queues run out. Re-entrant calls coalesce. */
  pump(): void {
    if (this.pumping) {
      this.again = true;
      return;
    }
    this.pumping = true;
    try {
      for (const lane of this.lanes.values()) this.dispatch(lane);
    } catch (err) {
      this.o.log.error({ err }, 'dispatch failed');
    } finally {
      this.pumping = false;
    }
    if (this.again && !this.stopping) {
      this.again = false;
      queueMicrotask(() => this.pump());
    }
  }

  /**
   * The runs of one completion batch free their slots one promise callback at a time; pumping
   * after each would claim one run per transaction. Pump once, after all of them.
   */
  private schedulePump(): void {
    if (this.pumpScheduled) return;
    this.pumpScheduled = true;
    setImmediate(() => {
      this.pumpScheduled = false;
      this.o.metrics?.inFlight.set(this.inflight.size);
      this.pump();
    });
  }

  /**
   * One pass over a lane's tenants, in their turns: each ready queue gets the room its tenant
   * and the lane have, reserved up front so claims never oversubscribe the lane or a tenant. The
   * queues picked in one pass are claimed together, up to QUEUES_PER_CLAIM in one transaction
   * (claim.ts), and up to MAX_CLAIMS such transactions run at once.
   */
  private dispatch(lane: Lane): void {
    if (this.claimPause.paused) return;
    const free = () => lane.counts.room();
    const turns = lane.ready.turns();
    let picked: Pick[] = [];
    try {
      while (!this.stopping && this.claims.size < MAX_CLAIMS && free() > 0) {
        const turn = turns.next();
        if (turn.done) break;
        const { tenantId, priority } = turn.value;
        const room = Math.min(free(), this.tenantRoom(tenantId), this.o.config.batchSize);
        if (room <= 0 || !priority) continue;
        const queue = queueName({ lane: lane.lane, tenantId, priority });
        if (this.claiming.has(queue)) continue;
        this.claiming.add(queue);
        lane.counts.reserve(room);
        this.addTenant(tenantId, room);
        picked.push({ queue, tenantId, priority, room });
        if (picked.length === QUEUES_PER_CLAIM) {
          this.startClaim(lane, picked);
          picked = [];
        }
      }
    } finally {
      // Queues picked and reserved are claimed (and so released) even if the pass broke off.
      if (picked.length) this.startClaim(lane, picked);
    }
  }

  private startClaim(lane: Lane, picked: Pick[]): void {
    const task = this.claim(lane, picked)
      .then(
        () => this.claimPause.succeeded(),
        (err) => this.claimPause.failed(err, { queues: picked.map((p) => p.queue) }),
      )
      .finally(() => {
        for (const p of picked) {
          this.claiming.delete(p.queue);
          lane.counts.unreserve(p.room);
          this.addTenant(p.tenantId, -p.room);
        }
        this.claims.delete(task);
        this.pump();
      });
    this.claims.add(task);
  }

  /** How many more of this tenant's runs this node may take (its share, less running and reserved). */
  private tenantRoom(tenantId: string): number {
    return this.o.limits.perNode(tenantId) - (this.tenantInflight.get(tenantId) ?? 0);
  }

  private addTenant(tenantId: string, n: number): void {
    const next = (this.tenantInflight.get(tenantId) ?? 0) + n;
    if (next > 0) this.tenantInflight.set(tenantId, next);
    else this.tenantInflight.delete(tenantId);
  }

  private async claim(lane: Lane, picked: Pick[]): Promise<void> {
    const { config } = this.o;
    const result = await claimFromQueues(
      { pool: this.o.pool, workerId: config.workerId, runLeaseMs: config.runLeaseMs },
      picked,
    );
    if (result.skipped) this.o.metrics?.runsFinished.inc({ outcome: 'skipped' }, result.skipped);
    for (const run of result.claimed) this.execute(lane, run);
    // Set once per batch (and once per batch of finished runs, schedulePump), not per run.
    if (result.claimed.length) this.o.metrics?.inFlight.set(this.inflight.size);
    for (const [i, { queue, tenantId, priority, room }] of picked.entries()) {
      const fetched = result.fetched[i] ?? 0;
      if (fetched < room) lane.ready.drop(tenantId, priority);
      // Woken for work that was not there yet (clock edge): look once more shortly, rather than
      // waiting for the next discovery pass.
      const last = this.emptyRetries.get(queue) ?? 0;
      if (fetched === 0 && Date.now() - last > 500) {
        this.emptyRetries.set(queue, Date.now());
        this.o.wakeups.hint(queue, this.o.clock.now() + 20);
      }
    }
  }

  /**
   * Takes over a container run whose node died mid-attempt (the sweeper re-leased it to this
   * worker, same attempt): executed like a claimed run, its handler adopting the container.
   * False when this pool does not serve the container lane, is stopping, or runs it already.
   */
  adopt(run: ClaimedRun): boolean {
    const lane = this.lanes.get('container');
    if (!lane || this.stopping || this.inflight.has(run.id)) return false;
    this.execute(lane, run, true);
    this.o.metrics?.inFlight.set(this.inflight.size);
    return true;
  }

  private execute(lane: Lane, run: ClaimedRun, resumed = false): void {
    const execution: Execution = {
      run,
      lane: lane.lane,
      abort: new AbortController(),
      reason: null,
      finished: false,
      done: Promise.resolve(),
      ...(resumed ? { resumed } : {}),
    };
    // Claimed ahead of its due time (resumed runs never are): it waits without an execution slot.
    execution.waiting = !resumed && run.db_now < run.due_at;
    this.inflight.set(run.id, execution);
    lane.counts.add(execution.waiting);
    this.addTenant(run.tenant_id, 1);
    execution.done = this.attempt(execution)
      .catch((err) => this.runLog(execution).error({ err }, 'run execution failed'))
      .finally(() => {
        this.inflight.delete(run.id);
        lane.counts.remove(execution.waiting === true);
        this.addTenant(run.tenant_id, -1);
        this.schedulePump();
      });
  }

  /**
   * The run's logger, made when a line is first written: a child logger costs a serialization
   * of its fields (and the redaction pass), per run, and a successful run writes no line at the
   * default level.
   */
  private runLog(execution: Execution): Log {
    const { run } = execution;
    execution.log ??= this.o.log.child({
      runId: run.id,
      jobId: run.job_id,
      tenantId: run.tenant_id,
      attempt: run.attempt,
    });
    return execution.log;
  }

  private async attempt(execution: Execution): Promise<void> {
    const outcome = await executeAttempt(this.executeDeps, execution);
    execution.finished = true;
    await completeAttempt(
      {
        completions: this.completions,
        clock: this.o.clock,
        metrics: this.o.metrics,
        debug: this.o.log.isLevelEnabled('debug'),
      },
      execution,
      outcome,
      () => this.runLog(execution),
    );
  }

  /** A run claimed ahead is due: it takes an execution slot of its lane, waiting for one if none is free. */
  private admit(execution: Execution): boolean | Promise<boolean> {
    const counts = execution.waiting && this.lanes.get(execution.lane)?.counts;
    if (!counts) return true;
    const settle = (admitted: boolean) => {
      if (admitted) execution.waiting = false;
      return admitted;
    };
    const admitted = counts.admit(execution.abort.signal);
    return typeof admitted === 'boolean' ? settle(admitted) : admitted.then(settle);
  }

  /** Aborts a run this worker executes, unless it was stopped already; its outcome is then fenced or released. */
  private interrupt(runId: string, reason: StopReason, message: string): void {
    const execution = this.inflight.get(runId);
    if (!execution || execution.reason) return;
    execution.reason = reason;
    execution.abort.abort(new Error(message));
  }

  /** Stop claiming; let running attempts finish within the grace period, then release them. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.claimPause.stop();
    this.completions.giveUpAfter(this.o.config.shutdownGraceMs + 5_000);
    await Promise.all([...this.claims]);
    const deadline = Date.now() + this.o.config.shutdownGraceMs;
    while (this.inflight.size && Date.now() < deadline) {
      await Promise.race([
        Promise.all([...this.inflight.values()].map((e) => e.done)),
        new Promise((r) => setTimeout(r, Math.max(0, deadline - Date.now()))),
      ]);
    }
    for (const e of this.inflight.values()) {
      e.reason = 'shutdown';
      e.abort.abort(new Error('worker shutting down'));
    }
    await Promise.all([...this.inflight.values()].map((e) => e.done));
    this.heartbeat.stop();
    await this.completions.drain();
  }
}
