// Sizing: from what the bench measured — CPU per run of the engine and of PostgreSQL (the
// herd, from /proc), WAL and run-history bytes per run (the herd), bytes per stored job (the
// scale scenario) — what a deployment needs for a given rate of due jobs and a given number of
// stored jobs. Pure arithmetic, unit-tested in sizing.test.ts; the formulas are written out in
// bench/results/README.md ("Sizing").

export interface SizingInputs {
  /** engine nodes' CPU per run, ms (herd) */
  engineCpuMsPerRun: number | null;
  /** PostgreSQL's CPU per run, ms: all its processes (herd) */
  postgresCpuMsPerRun: number | null;
  /** WAL written per run, bytes (herd) */
  walBytesPerRun: number | null;
  /** runs + run_attempts on disk per run, bytes (herd) */
  historyBytesPerRun: number | null;
  /** jobs (with its schedule) on disk per stored job, bytes (scale) */
  bytesPerJob: number | null;
  /** what the scheduler's scan and advance touch per stored job, bytes (scale) */
  hotBytesPerJob: number | null;
}

export interface SizingTarget {
  /** jobs due per second, sustained */
  perSecond: number;
  /** stored jobs */
  jobs: number;
  /** the share of each core to plan for (0.7: 30 % headroom) */
  utilisation: number;
  /** cores one engine node can use: Node runs the JavaScript on one thread */
  coresPerNode: number;
  /** days of run history kept (tenants.retention_days, default 30) */
  retentionDays: number;
}

export const DEFAULT_TARGET: SizingTarget = {
  perSecond: 10_000,
  jobs: 100_000_000,
  utilisation: 0.7,
  coresPerNode: 1,
  retentionDays: 30,
};

export interface Sizing {
  target: SizingTarget;
  inputs: SizingInputs;
  engine: { busyCores: number; cores: number; nodes: number } | null;
  postgres: { busyCores: number; cores: number; walMBPerSecond: number | null } | null;
  /** jobs + schedule for `jobs` stored jobs, GB (10^9 bytes) */
  jobsDiskGB: number | null;
  /** hot set for the scheduler over `jobs` stored jobs, GB: shared buffers + page cache */
  hotMemoryGB: number | null;
  /** run history at `perSecond` for `retentionDays`, GB; and per day */
  historyDiskGB: number | null;
  historyDiskGBPerDay: number | null;
}

const round1 = (v: number) => Math.round(v * 10) / 10;

/**
 * busy cores = rate × CPU ms per run ÷ 1,000; cores to provision = busy ÷ utilisation, rounded
 * up; engine nodes = busy ÷ (utilisation × cores per node), rounded up.
 */
export function sizing(inputs: SizingInputs, target: SizingTarget = DEFAULT_TARGET): Sizing {
  const busy = (msPerRun: number) => (target.perSecond * msPerRun) / 1000;
  const e = inputs.engineCpuMsPerRun;
  const p = inputs.postgresCpuMsPerRun;
  const day = target.perSecond * 86_400;
  return {
    target,
    inputs,
    engine:
      e === null
        ? null
        : {
            busyCores: round1(busy(e)),
            cores: Math.ceil(busy(e) / target.utilisation),
            nodes: Math.max(1, Math.ceil(busy(e) / (target.utilisation * target.coresPerNode))),
          },
    postgres:
      p === null
        ? null
        : {
            busyCores: round1(busy(p)),
            cores: Math.ceil(busy(p) / target.utilisation),
            walMBPerSecond:
              inputs.walBytesPerRun === null ? null : round1((target.perSecond * inputs.walBytesPerRun) / 1e6),
          },
    jobsDiskGB: inputs.bytesPerJob === null ? null : round1((target.jobs * inputs.bytesPerJob) / 1e9),
    hotMemoryGB: inputs.hotBytesPerJob === null ? null : round1((target.jobs * inputs.hotBytesPerJob) / 1e9),
    historyDiskGBPerDay: inputs.historyBytesPerRun === null ? null : round1((day * inputs.historyBytesPerRun) / 1e9),
    historyDiskGB:
      inputs.historyBytesPerRun === null
        ? null
        : round1((day * target.retentionDays * inputs.historyBytesPerRun) / 1e9),
  };
}

/**
 * The scheduler's hot set per job from the scale scenario's bytes per relation: every index of
 * jobs. The due scan reads jobs_due_idx; each advance writes a new version of the job's row
 * (never a HOT update: next_run_at is indexed), which adds an entry to every index of jobs. The
 * jobs heap is read and written only for the jobs that are due.
 */
export function hotBytesPerJob(perRelation: Record<string, number>): number | null {
  const indexes = Object.entries(perRelation).filter(([name]) => name.startsWith('jobs_'));
  if (!indexes.some(([name]) => name === 'jobs_due_idx')) return null;
  return indexes.reduce((sum, [, bytes]) => sum + bytes, 0);
}
