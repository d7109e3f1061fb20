// The worker side of a node: fetches due messages from the queues that have work, fairly
// across tenants (round-robin over tenants; within a tenant, higher priority first; each
// tenant capped by its concurrency share), claims their runs under a lease, executes them
// through the handler for their target type, heartbeats the leases and records outcomes.
import { decideRetry, PRIORITIES, type Priority } from '@belfry/core';
import {
  claimRuns,
  extendRunLeases,
  parseQueueName,
  pgExecutor,
  queueName,
  skipOverlappingRuns,
  type AttemptOutcome,
  type ClaimedRun,
  type QueueClient,
  type RunMessage,
  withTransaction,
} from '@belfry/db';
import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';
import type { DbClock } from '../db-clock';
import { type HandlerOutcome, type HandlerRegistry, laneOf, routeOf } from '@belfry/handlers';
import type { Log } from '../logger';
import type { Metrics } from '../metrics';
import { CompletionBatcher } from './completions';
import type { SigningSecrets } from './secrets';
import type { TenantLimits } from './tenant-limits';
import type { Wakeups } from './wakeups';

/** Fetch-and-claim transactions in flight at once on one node. */
const MAX_CLAIMS = 8;

export interface WorkerConfig {
  workerId: string;
  concurrency: number;
  batchSize: number;
  runLeaseMs: number;
  heartbeatMs: number;
  shutdownGraceMs: number;
}

interface Execution {
  run: ClaimedRun;
  abort: AbortController;
  reason: 'cancelled' | 'lease-lost' | 'shutdown' | 'rerouted' | null;
  /** the handler returned; its outcome is being recorded (no more heartbeats needed) */
  finished: boolean;
  done: Promise<void>;
}

export class WorkerPool {
  private readonly ready = new Map<string, Set<Priority>>(); // tenant -> priorities with work
  private ring: string[] = [];
  private cursor = 0;
  private readonly inflight = new Map<string, Execution>();
  private readonly tenantInflight = new Map<string, number>();
  private pumping = false;
  private pumpScheduled = false;
  private readonly claiming = new Set<string>(); // tenants with a fetch in flight
  private reserved = 0; // slots reserved by fetches in flight
  private readonly claims = new Set<Promise<void>>();
  private readonly emptyRetries = new Map<string, number>(); // queue -> when it was last re-checked
  private again = false;
  private stopping = false;
  private heartbeat: NodeJS.Timeout | undefined;
  private readonly completions: CompletionBatcher;

  constructor(
    private readonly pool: pg.Pool,
    private readonly boss: QueueClient,
    private readonly handlers: HandlerRegistry,
    private readonly secrets: SigningSecrets,
    private readonly limits: TenantLimits,
    private readonly wakeups: Wakeups,
    private readonly clock: DbClock,
    private readonly config: WorkerConfig,
    private readonly log: Log,
    private readonly metrics?: Metrics,
  ) {
    this.completions = new CompletionBatcher(pool, boss, config.workerId, log);
  }

  get inFlight(): number {
    return this.inflight.size;
  }

  start(): void {
    this.stopping = false;
    this.wakeups.on('ready', (queues) => {
      for (const q of queues) this.markReady(q);
      this.pump();
    });
    this.wakeups.on('cancel', (runId) => this.interrupt(runId, 'cancelled', 'run was cancelled'));
    this.heartbeat = setInterval(() => void this.beat(), this.config.heartbeatMs);
  }

  private markReady(queue: string): void {
    const parsed = parseQueueName(queue);
    // Only the push lane's queues, for now: pull runs are never ours.
    if (parsed?.lane !== 'push') return;
    let set = this.ready.get(parsed.tenantId);
    if (!set) {
      set = new Set();
      this.ready.set(parsed.tenantId, set);
      this.ring.push(parsed.tenantId);
    }
    set.add(parsed.priority);
  }

  private dropReady(tenantId: string, priority: Priority): void {
    const set = this.ready.get(tenantId);
    if (!set) return;
    set.delete(priority);
    if (!set.size) {
      this.ready.delete(tenantId);
      this.ring = this.ring.filter((t) => t !== tenantId);
    }
  }

  /**
   * Fetch-and-claim until slots or ready queues run out. Up to `MAX_CLAIMS` fetches for
   * different tenants run at once; their slots are reserved up front so they never
   * oversubscribe the node or a tenant. Re-entrant calls coalesce.
   */
  pump(): void {
    if (this.pumping) {
      this.again = true;
      return;
    }
    this.pumping = true;
    try {
      this.dispatch();
    } catch (err) {
      this.log.error({ err }, 'dispatch failed');
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
      this.pump();
    });
  }

  private dispatch(): void {
    // One pass over the tenants, starting where the last pass stopped.
    const tenants = this.ring.length;
    for (let i = 0; i < tenants && !this.stopping && this.claiming.size < MAX_CLAIMS; i++) {
      const tenantId = this.ring[this.cursor++ % this.ring.length];
      if (!tenantId || this.claiming.has(tenantId)) continue;
      const room = Math.min(
        this.config.concurrency - this.inflight.size - this.reserved,
        this.limits.perNode(tenantId) - (this.tenantInflight.get(tenantId) ?? 0),
        this.config.batchSize,
      );
      if (this.config.concurrency - this.inflight.size - this.reserved <= 0) return;
      if (room <= 0) continue;
      const priority = PRIORITIES.find((p) => this.ready.get(tenantId)?.has(p));
      if (!priority) continue;
      this.claiming.add(tenantId);
      this.reserved += room;
      const task = this.fetchAndClaim(tenantId, priority, room)
        .then((fetched) => {
          if (fetched < room) this.dropReady(tenantId, priority);
          // Woken for work that was not there yet (clock edge): look once more shortly, rather
          // than waiting for the next discovery pass.
          const name = queueName({ lane: 'push', tenantId, priority });
          const last = this.emptyRetries.get(name) ?? 0;
          if (fetched === 0 && Date.now() - last > 500) {
            this.emptyRetries.set(name, Date.now());
            this.wakeups.hint(name, this.clock.now() + 20);
          }
        })
        .catch((err) => this.log.error({ err, tenantId }, 'fetch and claim failed'))
        .finally(() => {
          this.claiming.delete(tenantId);
          this.claims.delete(task);
          this.reserved -= room;
          this.pump();
        });
      this.claims.add(task);
    }
  }

  /**
   * Fetches up to `room` due messages of one queue and claims their runs, in ONE transaction:
   * the messages are settled in it too, so a crash at any point leaves either the messages
   * (rolled back to queued) or the leased runs (for the reaper) — never neither.
   */
  private async fetchAndClaim(tenantId: string, priority: Priority, room: number): Promise<number> {
    const name = queueName({ lane: 'push', tenantId, priority });
    let claimed: ClaimedRun[] = [];
    let fetched = 0;
    let skippedCount = 0;
    await withTransaction(
      this.pool,
      async (client) => {
        const db = pgExecutor(client);
        const jobs = await this.boss.fetch<RunMessage>(name, { batchSize: room, db });
        fetched = jobs.length;
        if (jobs.length) {
          const ids = jobs.map((j) => j.data.runId);
          const times = jobs.map((j) => new Date(j.data.scheduledTime));
          // Only scheduled runs of overlap-skip jobs can be skipped; most batches have none.
          const checked = jobs.filter((j) => j.data.overlap);
          const skipped = checked.length
            ? await skipOverlappingRuns(
                client,
                checked.map((j) => j.data.runId),
                checked.map((j) => new Date(j.data.scheduledTime)),
              )
            : [];
          skippedCount = skipped.length;
          claimed = await claimRuns(client, this.config.workerId, this.config.runLeaseMs, ids, times);
          // Deleted rather than completed: the run row is the history, and a delete writes
          // no new row version (nor index entries) and leaves pg-boss nothing to clean up.
          await this.boss.deleteJob(
            name,
            jobs.map((j) => ({ id: j.id, retryCount: j.retryCount })),
            { db },
          );
        }
      },
      { maxTries: 1 },
    );
    if (skippedCount) this.metrics?.runsFinished.inc({ outcome: 'skipped' }, skippedCount);
    for (const run of claimed) this.execute(run);
    return fetched;
  }

  private execute(run: ClaimedRun): void {
    const abort = new AbortController();
    const execution: Execution = { run, abort, reason: null, finished: false, done: Promise.resolve() };
    this.inflight.set(run.id, execution);
    this.tenantInflight.set(run.tenant_id, (this.tenantInflight.get(run.tenant_id) ?? 0) + 1);
    this.metrics?.inFlight.set(this.inflight.size);
    const log = this.log.child({ runId: run.id, jobId: run.job_id, tenantId: run.tenant_id, attempt: run.attempt });
    execution.done = this.run(execution, log)
      .catch((err) => log.error({ err }, 'run execution failed'))
      .finally(() => {
        this.inflight.delete(run.id);
        this.tenantInflight.set(run.tenant_id, (this.tenantInflight.get(run.tenant_id) ?? 1) - 1);
        this.metrics?.inFlight.set(this.inflight.size);
        this.schedulePump();
      });
  }

  private async run(execution: Execution, log: Log): Promise<void> {
    const { run } = execution;
    // Runs are claimable a little before their scheduled time; the target is never called early.
    const started = await this.untilDue(run.scheduled_time.getTime(), execution.abort.signal);
    const due = run.attempt > 1 && run.next_attempt_at ? run.next_attempt_at : run.scheduled_time;
    this.metrics?.recordLag(this.clock.now() - due.getTime());
    const handler = this.handlers.get(run.target.type);
    let outcome: HandlerOutcome;
    if (laneOf(run.target.type) !== 'push') {
      // The job's target changed kind after this run was queued: hand it to its own lane.
      execution.reason = 'rerouted';
      outcome = {
        ok: false,
        failure: 'connection',
        error: `rerouted: the target is now ${run.target.type}`,
        durationMs: 0,
      };
    } else if (!started) {
      outcome = { ok: false, failure: 'connection', error: 'not started: stopped before it was due', durationMs: 0 };
    } else if (!handler) {
      outcome = {
        ok: false,
        failure: 'invalid',
        error: `no handler for target type '${run.target.type}'`,
        durationMs: 0,
      };
    } else {
      outcome = await handler.execute(run.target, run.payload, {
        runId: run.id,
        jobId: run.job_id,
        tenantId: run.tenant_id,
        attempt: run.attempt,
        scheduledTime: run.scheduled_time,
        timeoutMs: run.timeout_seconds * 1000,
        signal: execution.abort.signal,
        signingSecrets: await this.secrets.get(run.tenant_id),
        now: () => new Date(this.clock.now()),
      });
    }

    execution.finished = true;
    const record = this.decide(execution, outcome);
    const recorded = await this.completions.submit(record, routeOf(run.target, run.tenant_id, run.priority));
    const label = recorded ? (record.runStatus === 'failed' ? 'retry' : record.runStatus) : 'stale';
    this.metrics?.runsFinished.inc({ outcome: label });
    if (recorded) {
      // Successes are the bulk (thousands a second at peak): debug. Failures are worth a line.
      const fields = { status: record.runStatus, httpStatus: outcome.httpStatus, durationMs: outcome.durationMs };
      if (record.runStatus === 'succeeded') log.debug(fields, 'attempt finished');
      else log.info({ ...fields, error: record.error }, 'attempt finished');
    } else log.warn({ reason: execution.reason }, 'stale completion rejected: this worker no longer holds the run');
  }

  /** Waits until `at` (database clock, with its uncertainty); false if aborted first. */
  private async untilDue(at: number, signal: AbortSignal): Promise<boolean> {
    const wait = at - this.clock.now() + this.clock.uncertainty + 1;
    if (wait <= 0 || signal.aborted) return !signal.aborted;
    try {
      await sleep(wait, undefined, { signal });
      return true;
    } catch {
      return false; // aborted
    }
  }

  private decide(execution: Execution, outcome: HandlerOutcome): AttemptOutcome {
    const { run } = execution;
    const base = {
      runId: run.id,
      scheduledTime: run.scheduled_time,
      attempt: run.attempt,
      httpStatus: outcome.httpStatus ?? null,
      durationMs: Math.round(outcome.durationMs),
      responseSnippet: outcome.responseSnippet ?? null,
      requestHeaders: outcome.requestHeaders ?? null,
    };
    if (outcome.ok) {
      return { ...base, runStatus: 'succeeded', attemptStatus: 'succeeded', nextAttemptAt: null, error: null };
    }
    if (execution.reason === 'shutdown' || execution.reason === 'rerouted') {
      // Released, not failed: another node (or the run's own lane) picks the run up at once.
      return {
        ...base,
        runStatus: 'pending',
        attemptStatus: 'cancelled',
        nextAttemptAt: new Date(),
        error: execution.reason === 'shutdown' ? 'released: worker shutting down' : (outcome.error ?? 'rerouted'),
      };
    }
    const error = outcome.error ?? 'failed';
    const policy = {
      maxAttempts: run.retry_max_attempts,
      initialDelaySeconds: run.retry_initial_delay_seconds,
      maxDelaySeconds: run.retry_max_delay_seconds,
    };
    const decision = decideRetry(
      policy,
      run.attempt,
      {
        failure: outcome.failure ?? 'invalid',
        httpStatus: outcome.httpStatus ?? null,
        retryAfterMs: outcome.retryAfterMs ?? null,
      },
      new Date(this.clock.now()),
      Math.random,
    );
    if ('retryAt' in decision) {
      return { ...base, runStatus: 'failed', attemptStatus: 'failed', nextAttemptAt: decision.retryAt, error };
    }
    return { ...base, runStatus: 'dead', attemptStatus: 'failed', nextAttemptAt: null, error };
  }

  /** Aborts a run this worker executes, unless it was stopped already; its outcome is then fenced or released. */
  private interrupt(runId: string, reason: 'cancelled' | 'lease-lost', message: string): void {
    const execution = this.inflight.get(runId);
    if (!execution || execution.reason) return;
    execution.reason = reason;
    execution.abort.abort(new Error(message));
  }

  private async beat(): Promise<void> {
    // Runs whose outcome is being recorded are left alone: the completion transaction holds
    // their rows, and touching them here too would only risk a deadlock.
    const runs = [...this.inflight.values()].filter((e) => !e.reason && !e.finished).map((e) => e.run);
    if (!runs.length) return;
    try {
      const kept = await extendRunLeases(
        this.pool,
        this.config.workerId,
        this.config.runLeaseMs,
        runs.map((r) => ({ id: r.id, scheduledTime: r.scheduled_time, attempt: r.attempt })),
      );
      for (const r of runs) {
        if (!kept.has(r.id)) this.interrupt(r.id, 'lease-lost', 'run was cancelled or its lease was lost');
      }
    } catch (err) {
      this.log.warn({ err }, 'lease heartbeat failed');
    }
  }

  /** Stop claiming; let running attempts finish within the grace period, then release them. */
  async stop(): Promise<void> {
    this.stopping = true;
    await Promise.all([...this.claims]);
    const deadline = Date.now() + this.config.shutdownGraceMs;
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
    if (this.heartbeat) clearInterval(this.heartbeat);
    await this.completions.drain();
  }
}
