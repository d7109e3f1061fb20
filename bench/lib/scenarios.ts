// Belfry's own scenarios, in the order the bench runs them: each one --only selects runs at the
// scale bench/lib/args.ts chose, writes its SVG charts to outDir and adds its figures to
// `results` (bench/results/latest.json). The peers run after these (bench/run.ts).
import { writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import type { BenchArgs } from './args';
import { lagHistogram, lagOverTime } from './svg';
import { type BenchFigures, fairnessSummary } from './table';
import { runHandlers, type HandlersResult } from '../scenarios/handlers';
import { runHerd, type HerdResult } from '../scenarios/herd';
import { runFailover, type FailoverResult } from '../scenarios/failover';
import { runCreate, type CreateResult } from '../scenarios/create';
import { runOverhead, type OverheadResult } from '../scenarios/overhead';
import { runContainer, type ContainerResult } from '../scenarios/container';
import { runPull, type PullResult } from '../scenarios/pull';
import { runScale, type ScaleResult } from '../scenarios/scale';
import { runSteady, type SteadyResult } from '../scenarios/steady';
import { runKnee, type KneeResult } from '../scenarios/knee';
import { hotBytesPerJob, type Sizing, sizing } from './sizing';

/** What the Belfry scenarios measured: the table's figures but the peers'. */
export type BelfryFigures = Omit<BenchFigures, 'peers' | 'comparisons'>;

export async function runBelfryScenarios(
  { quick, want, P, handlerKinds }: BenchArgs,
  outDir: string,
  log: (message: string) => void,
  /** filled scenario by scenario, so a run that fails part-way keeps what it measured */
  results: Record<string, unknown> = {},
): Promise<BelfryFigures> {
  let herd: HerdResult | undefined;
  let steady: SteadyResult | undefined;
  let overhead: OverheadResult | undefined;
  let fair: HerdResult | undefined;
  let fairHang: HerdResult | undefined;
  const scale: ScaleResult[] = [];

  if (want('herd')) {
    log(`herd: ${P.herd} jobs, 20 tenants, 2 engine nodes of ${P.herdConcurrency} slots`);
    herd = await runHerd({
      count: P.herd,
      tenants: 20,
      engines: 2,
      label: 'herd',
      leadSeconds: P.herdLead,
      workerConcurrency: P.herdConcurrency,
    });
    const { points, lags, ...rest } = herd;
    results.herd = rest;
    writeFileSync(
      join(outDir, 'herd-lag-over-time.svg'),
      lagOverTime(`Herd of ${P.herd}: start lag vs time since due`, points),
    );
    writeFileSync(
      join(outDir, 'herd-lag-histogram.svg'),
      lagHistogram(`Herd of ${P.herd}: start-lag distribution`, lags),
    );
  }
  let herdJitter: HerdResult | undefined;
  if (want('herd-jitter')) {
    log(`herd-jitter: ${P.herd} jobs with jitterSeconds ${P.herdJitter}, lag from each run's dueAt`);
    herdJitter = await runHerd({
      count: P.herd,
      tenants: 20,
      engines: 2,
      label: 'herd-jitter',
      leadSeconds: P.herdLead,
      // The herd's 400 slots per node: the ~850 runs a second each node claims up to 500 ms ahead
      // wait beside its slots, not in them (apps/engine/src/worker/lane-slots.ts).
      jitterSeconds: P.herdJitter,
    });
    const { points, lags, ...rest } = herdJitter;
    results.herdJitter = rest;
    writeFileSync(
      join(outDir, 'herd-jitter-lag-over-time.svg'),
      lagOverTime(`Herd of ${P.herd}, jitter ${P.herdJitter} s: start lag (from dueAt) vs time since due`, points),
    );
  }
  if (want('steady')) {
    log(`steady: ${P.steadyRate} occurrences/s for ${P.steadySeconds} s`);
    steady = await runSteady({ perSecond: P.steadyRate, seconds: P.steadySeconds, engines: 2, tenants: 20 });
    const { points, lags, ...rest } = steady;
    results.steady = rest;
    writeFileSync(
      join(outDir, 'steady-lag-over-time.svg'),
      lagOverTime(`Steady ${P.steadyRate}/s: start lag over time`, points),
    );
    writeFileSync(
      join(outDir, 'steady-lag-histogram.svg'),
      lagHistogram(`Steady ${P.steadyRate}/s: start-lag distribution`, lags),
    );
  }
  let knee: KneeResult | undefined;
  if (want('knee')) {
    log(
      `knee: steady rates from ${P.kneeStep}/s up by ${P.kneeStep}/s, then bisecting to ${P.kneeResolution}/s, ${P.kneeSeconds} s each, at most ${P.kneeSteps} steps; holds = all delivered, p99 ≤ 1000 ms`,
    );
    knee = await runKnee(
      {
        seconds: P.kneeSeconds,
        engines: 2,
        tenants: 20,
        plan: { ladderStep: P.kneeStep, resolution: P.kneeResolution, maxSteps: P.kneeSteps, p99LimitMs: 1000 },
      },
      log,
    );
    results.knee = knee;
  }
  if (want('overhead')) {
    log(`overhead: raw pg-boss and raw PostgreSQL with ${P.herd} messages`);
    overhead = await runOverhead({ count: P.herd, queues: 20, batch: 50, consumers: 2 });
    results.overhead = {
      ...overhead,
      belfryPerSecond: herd?.deliveriesPerSecond ?? null,
      belfryVsPgBoss: herd?.deliveriesPerSecond
        ? Math.round((herd.deliveriesPerSecond / overhead.pgBossPerSecond) * 100) / 100
        : null,
      belfryVsPostgres: herd?.deliveriesPerSecond
        ? Math.round((herd.deliveriesPerSecond / overhead.postgresInsertPerSecond) * 100) / 100
        : null,
    };
  }
  if (want('scale')) {
    scale.push(...(await runScale({ jobs: P.scale, due: 1_000, iterations: 100, log })));
    const [small, large] = scale;
    // large ÷ small, two decimals; null without both figures (or with a zero one)
    const ratio = (of: (r: ScaleResult) => number | null) => {
      const [a, b] = [small && of(small), large && of(large)];
      return a && b ? Math.round((b / a) * 100) / 100 : null;
    };
    results.scale = {
      runs: scale,
      latencyRatioP50: ratio((r) => r.scan.p50),
      latencyRatioP99: ratio((r) => r.scan.p99),
      backToBackRatioP50: ratio((r) => r.scanBackToBack.p50),
      backToBackRatioP99: ratio((r) => r.scanBackToBack.p99),
    };
  }
  let container: ContainerResult | undefined;
  if (want('container')) {
    const slots = Math.max(1, cpus().length);
    log(
      `container: ${P.containers} containers that exit at once, and as many bare docker run --rm, ${slots} at a time`,
    );
    container = await runContainer({ count: P.containers, slots });
    results.container = container;
  }
  let create: CreateResult | undefined;
  if (want('create')) {
    log(`create: ${P.create} jobs through POST /api/v1/jobs/batch, 1,000 per request, 2 in flight`);
    create = await runCreate({ count: P.create, batch: 1_000, concurrency: 2 });
    results.create = create;
  }
  let failover: FailoverResult | undefined;
  if (want('failover')) {
    log('failover: three nodes, 100 occurrences/s, one killed with SIGKILL after 20 s');
    failover = await runFailover({ perSecond: 100, seconds: quick ? 50 : 60, killAfterSeconds: 20 });
    results.failover = failover;
  }
  if (want('fairness')) {
    log(`fairness: one tenant with ${P.fairBig} due at once, nine with ${P.fairSmall}`);
    fair = await runHerd({
      count: 0,
      tenants: 10,
      skew: { big: P.fairBig, small: P.fairSmall },
      engines: 2,
      label: 'fairness',
      leadSeconds: P.herdLead,
    });
    results.fairness = fairnessSummary(fair);
    writeFileSync(
      join(outDir, 'fairness-lag-over-time.svg'),
      lagOverTime('Fairness: start lag (all tenants) vs time since due', fair.points),
    );
    log(`fairness-hang: one tenant's ${P.fairHang} targets hang, nine with ${P.fairSmall} on the same origin`);
    fairHang = await runHerd({
      count: 0,
      tenants: 10,
      skew: { big: P.fairHang, small: P.fairSmall },
      hangBig: true,
      engines: 2,
      label: 'fairness-hang',
      leadSeconds: P.herdLead,
    });
    results.fairnessHang = fairnessSummary(fairHang);
  }

  let handlers: HandlersResult | undefined;
  if (want('handlers')) {
    log(
      `handlers: ${P.handlers} due runs per target kind (${handlerKinds?.join(', ') ?? 'all kinds'}), 2 engine nodes`,
    );
    handlers = await runHandlers({ count: P.handlers, tenants: 20, engines: 2, kinds: handlerKinds });
    const http = handlers.kinds.find((k) => k.kind === 'http');
    results.handlers = {
      ...handlers,
      // Each broker kind's throughput over HTTP's (target: at least 1; pull's target is ≥ 1,000/s).
      vsHttp: Object.fromEntries(
        handlers.kinds
          .filter((k) => k.kind !== 'http' && k.kind !== 'pull' && k.runsPerSecond && http?.runsPerSecond)
          .map((k) => [k.kind, Math.round(((k.runsPerSecond ?? 0) / (http?.runsPerSecond ?? 1)) * 100) / 100]),
      ),
    };
  }

  let pull: PullResult | undefined;
  if (want('pull')) {
    log(`pull: ${P.pull} due runs of pull targets, 4 tenants × 2 workers claiming 100 at a time over REST`);
    pull = await runPull({ count: P.pull, tenants: 4, workersPerTenant: 2, batch: 100 });
    results.pull = pull;
  }

  // Derived from the herd's CPU, WAL and history per run and the largest scale run's bytes per job.
  let sized: Sizing | undefined;
  if (herd?.cpu || scale.length) {
    const largest = scale.at(-1);
    sized = sizing({
      engineCpuMsPerRun: herd?.cpu ? herd.cpu.per1000Runs.engines / 1000 : null,
      postgresCpuMsPerRun: herd?.cpu ? herd.cpu.per1000Runs.postgresAll / 1000 : null,
      walBytesPerRun: herd?.cpu?.walBytesPerRun ?? null,
      historyBytesPerRun: herd?.historyBytesPerRun ?? null,
      bytesPerJob: largest?.bytesPerJob ?? null,
      hotBytesPerJob: largest ? hotBytesPerJob(largest.perRelation) : null,
    });
    results.sizing = sized;
  }

  return {
    herd,
    herdJitter,
    knee,
    sizing: sized,
    herdJitterSeconds: P.herdJitter,
    steady,
    overhead,
    scale,
    fair,
    fairHang,
    create,
    failover,
    container,
    pull,
    handlers,
    results,
  };
}
