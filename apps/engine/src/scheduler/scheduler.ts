// The scheduler loop of one node: for the partitions it holds, turns the jobs whose next
// occurrence is due into runs and queue messages and advances them, all in one fenced transaction per
// batch. Runs are materialized up to `lookaheadMs` early and enqueued with startAfter = their
// scheduled time, so workers start them on time rather than a polling interval late.
import { dueTime, newId, type QueueRoute } from '@belfry/core';
import {
  advanceSchedule,
  enqueueRuns,
  insertScheduledRuns,
  lockPartitionLeases,
  pgExecutor,
  selectDueEntries,
  specOf,
  type DueEntry,
  type NewScheduledRun,
  type QueueClient,
  withTransaction,
} from '@belfry/db';
import { routeOf } from '@belfry/handlers';
import type pg from 'pg';
import { FailedRounds } from '../backoff';
import type { LeaseKeeper } from '../cluster/lease-keeper';
import type { Log } from '../logger';
import type { Metrics } from '../metrics';
import { DEFAULT_PLAN_OPTIONS, planEntry, type PlanOptions } from './plan';

export interface SchedulerConfig {
  nodeId: string;
  lookaheadMs: number;
  /** how long before its scheduled time a run's queue message becomes claimable */
  claimAheadMs: number;
  /**
   * A materialized run's open_runs row is written leased until its due time plus this
   * (leaseHint): a claim within it then writes no lease there. Unset: no hint.
   */
  leaseHintMs?: number;
  batchSize: number;
  /** scan loops at once while there is a backlog (1 = the main loop only) */
  concurrency: number;
  idleDelayMs: number;
  plan: PlanOptions;
}

export const DEFAULT_SCHEDULER_CONFIG: Omit<SchedulerConfig, 'nodeId'> = {
  // Not a whole number of seconds: occurrences mostly fall on whole seconds, and the scan that
  // materializes second N + 10 then runs in the middle of second N, not at its start, beside
  // the deliveries due then (bench steady: p99 after the first 10 s ~325 → ~270 ms).
  lookaheadMs: 10_500,
  claimAheadMs: 500,
  batchSize: 2_000,
  concurrency: 2,
  idleDelayMs: 200,
  plan: DEFAULT_PLAN_OPTIONS,
};

/**
 * The lease hint for runs claimed with leases of `runLeaseMs` (open-runs.ts in @belfry/db, "lease
 * hints"): never later than such a claim's lease, which starts no earlier than `claimAheadMs`
 * before the run is due, less a second for the clocks of the take and the claim; undefined
 * when that leaves nothing.
 */
export function leaseHint(runLeaseMs: number, claimAheadMs: number): number | undefined {
  const hint = runLeaseMs - claimAheadMs - 1_000;
  return hint > 0 ? hint : undefined;
}

export interface ScanResult {
  scanned: number;
  /** some partition has more due entries than one scan takes */
  more: boolean;
  materialized: number;
  skipped: number;
  fencedOut: number[];
}

export class Scheduler {
  private timer: NodeJS.Timeout | undefined;
  private loop: Promise<void> | undefined;
  private readonly helpers = new Set<Promise<void>>();
  private stopped = true;
  private readonly scanFailures: FailedRounds;

  constructor(
    private readonly pool: pg.Pool,
    private readonly queue: QueueClient,
    private readonly leases: Pick<LeaseKeeper, 'partitions' | 'forget'>,
    private readonly config: SchedulerConfig,
    private readonly log: Log,
    private readonly metrics?: Metrics,
  ) {
    this.scanFailures = new FailedRounds(log, 'scheduler scan', { initialMs: 200, maxMs: 2_000 });
  }

  start(): void {
    this.stopped = false;
    const next = (delay: number) => {
      if (this.stopped) return;
      this.timer = setTimeout(() => {
        this.loop = this.scanOnce()
          .then((r) => {
            this.scanFailures.succeeded();
            if (r.more) this.addHelper();
            next(r.more ? 0 : this.config.idleDelayMs);
          })
          .catch((err) => {
            // The database away: try again after a growing, jittered delay; the first success
            // resets it. Nothing is lost meanwhile: due entries wait in the table.
            // The first failure in full, then the 2nd, 4th, 8th … (FailedRounds).
            next(this.scanFailures.failed(err));
          });
      }, delay);
    };
    next(0);
  }

  /**
   * While a backlog lasts (a herd coming due), extra scan loops work beside the main one:
   * row locks with SKIP LOCKED give each its own entries, and one loop's JavaScript overlaps
   * the others' round trips. They stop when a scan finds no more than it took.
   */
  private addHelper(): void {
    if (this.stopped || this.helpers.size >= this.config.concurrency - 1) return;
    const helper = (async () => {
      try {
        while (!this.stopped && (await this.scanOnce()).more) {}
      } catch (err) {
        this.log.warn({ err }, 'scheduler helper scan failed');
      }
    })();
    this.helpers.add(helper);
    void helper.finally(() => this.helpers.delete(helper));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.loop?.catch(() => {});
    await Promise.all([...this.helpers]);
  }

  /** One fenced scan over every held partition. Exposed for tests. */
  async scanOnce(): Promise<ScanResult> {
    const held = this.leases.partitions();
    const result: ScanResult = { scanned: 0, more: false, materialized: 0, skipped: 0, fencedOut: [] };
    if (!held.length) return result;
    await withTransaction(
      this.pool,
      async (client) => {
        const scan = await selectDueEntries(
          client,
          held.map((h) => h.partition),
          this.config.lookaheadMs,
          this.config.batchSize,
        );
        const scannedDue = scan.entries;
        result.scanned = scannedDue.length;
        result.more = scan.more;
        if (!scannedDue.length) return; // nothing locked or written: committing ends it as well
        // Fencing: lock the leases of the partitions this batch writes for (not every held
        // partition: idle scans then lock nothing) and keep only those whose epoch is current.
        const involved = new Set(scannedDue.map((d) => d.partition));
        const valid = new Set(
          await lockPartitionLeases(
            client,
            this.config.nodeId,
            held.filter((h) => involved.has(h.partition)),
          ),
        );
        if (valid.size < involved.size) {
          result.fencedOut = [...involved].filter((p) => !valid.has(p));
          this.leases.forget(result.fencedOut);
          this.log.warn({ partitions: result.fencedOut.length }, 'fenced out of partitions; not writing for them');
        }
        const due = scannedDue.filter((d) => valid.has(d.partition));
        if (!due.length) return;

        const runs: NewScheduledRun[] = [];
        const routes = new Map<string, QueueRoute>();
        const advance: { jobId: string; next: Date }[] = [];
        const exhausted: string[] = [];
        for (const entry of due) {
          let plan: ReturnType<typeof planEntry>;
          try {
            plan = planEntry(specOf(entry), entry.next_run_at, entry.misfire_policy, entry.db_now, this.config.plan);
          } catch (err) {
            // A definition the maths cannot handle must not block the partition: retire it.
            this.log.error(
              { err, jobId: entry.job_id, tenantId: entry.tenant_id },
              'cannot plan job; retiring its schedule',
            );
            exhausted.push(entry.job_id);
            continue;
          }
          if (plan.unrecordedSkips > 0) {
            this.log.warn(
              { jobId: entry.job_id, unrecorded: plan.unrecordedSkips },
              'misfire: more skipped occurrences than recorded',
            );
          }
          // The job's queue, for its runs' messages below, and whether its runs are hinted
          // (leaseHint): where an engine claims them; a pull worker's claim keeps its lease in
          // running_runs.
          const route = routeOf(
            { type: entry.target_type, queue: entry.target_queue },
            entry.tenant_id,
            entry.priority,
          );
          routes.set(entry.job_id, route);
          const hinted = this.config.leaseHintMs !== undefined && route.lane !== 'pull';
          for (const o of plan.occurrences) {
            runs.push({
              ...(hinted ? { leaseHintMs: this.config.leaseHintMs } : {}),
              id: newId('run', o.scheduledTime),
              tenantId: entry.tenant_id,
              jobId: entry.job_id,
              scheduledTime: o.scheduledTime,
              dueAt: dueTime(entry.job_id, o.scheduledTime, entry.jitter_seconds),
              status: o.status,
              skipReason: o.skipReason,
              priority: entry.priority,
            });
          }
          if (plan.next) advance.push({ jobId: entry.job_id, next: plan.next });
          else exhausted.push(entry.job_id);
        }

        const entries = new Map(due.map((d) => [d.job_id, d]));
        const inserted = await insertScheduledRuns(client, runs);
        const toQueue = inserted.filter((r) => r.status === 'pending');
        await enqueueRuns(
          this.queue,
          pgExecutor(client),
          toQueue.map((r) => {
            const entry = entries.get(r.job_id) as DueEntry;
            const exclusive = entry.overlap_policy === 'skip';
            const route = routes.get(r.job_id) as QueueRoute;
            // Claimable a little before it is due (its scheduled time plus the job's jitter
            // offset), so an engine worker has the run in hand then (it waits for the due time
            // before calling the target). Not for overlap-skip jobs (whether the previous run
            // still runs is judged when the run is claimed), nor for pull queues: a tenant's
            // worker starts a run the moment it claims it, so it may claim only what is due.
            const ahead = !exclusive && route.lane !== 'pull';
            return {
              runId: r.id,
              route,
              scheduledTime: r.scheduled_time,
              startAfter: ahead ? new Date(r.due_at.getTime() - this.config.claimAheadMs) : r.due_at,
              overlapSkip: exclusive,
            };
          }),
        );
        // A one-off whose run was just queued is stored completed now, shown active until that
        // run finishes (jobStatusSql): its ending then writes nothing to the job.
        await advanceSchedule(client, advance, exhausted);
        result.materialized = toQueue.length;
        result.skipped = inserted.length - toQueue.length;
      },
      { maxTries: 1 },
    );
    if (result.materialized || result.skipped) {
      this.metrics?.materialized.inc(result.materialized);
      if (result.skipped) this.metrics?.runsFinished.inc({ outcome: 'skipped' }, result.skipped);
      this.log.debug({ scanned: result.scanned, materialized: result.materialized, skipped: result.skipped }, 'scan');
    }
    return result;
  }
}
