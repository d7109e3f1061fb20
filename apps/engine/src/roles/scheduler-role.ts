// The scheduler role of an engine node: the partition lease keeper and the scheduler that
// plans and enqueues the occurrences of the partitions it holds.
import { LeaseKeeper } from '../cluster/lease-keeper';
import { DEFAULT_SCHEDULER_CONFIG, leaseHint, Scheduler } from '../scheduler/scheduler';
import type { RoleContext } from './role-context';

export interface SchedulerRole {
  leases: LeaseKeeper;
  stop(): Promise<void>;
}

export async function startSchedulerRole({ env, log, pool, boss, metrics }: RoleContext): Promise<SchedulerRole> {
  const keeper = new LeaseKeeper(pool, { nodeId: env.nodeId, leaseMs: env.partitionLeaseMs }, log);
  const scheduler = new Scheduler(
    pool,
    boss,
    keeper,
    {
      ...DEFAULT_SCHEDULER_CONFIG,
      nodeId: env.nodeId,
      // for claims that lease runs for this node's BELFRY_RUN_LEASE_SECONDS; a node whose lease
      // is shorter finds the hint outlasting its lease, and writes its own
      leaseHintMs: leaseHint(env.runLeaseMs, DEFAULT_SCHEDULER_CONFIG.claimAheadMs),
      plan: { ...DEFAULT_SCHEDULER_CONFIG.plan, misfireGraceMs: env.misfireGraceMs },
    },
    log,
    metrics,
  );
  keeper.on('acquired', () => metrics.partitionsOwned.set(keeper.partitions().length));
  keeper.on('lost', () => metrics.partitionsOwned.set(keeper.partitions().length));
  keeper.on('released', () => metrics.partitionsOwned.set(keeper.partitions().length));
  let reported = 0;
  keeper.on('acquired', () => {
    metrics.leaseTakeovers.inc(keeper.takeovers - reported);
    reported = keeper.takeovers;
  });
  await keeper.start();
  scheduler.start();
  return {
    leases: keeper,
    async stop() {
      await scheduler.stop();
      await keeper.stop();
    },
  };
}
