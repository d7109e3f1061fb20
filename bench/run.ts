// `npm run bench [-- --quick] [-- --only=herd,steady,container,peers,...]`: Belfry's benchmark suite. Prints a
// table, writes bench/results/latest.json and one SVG chart per latency scenario. Options for
// development runs: --herd=N, --herd-jitter=S, --steady-rate=N, --steady-seconds=N, --create=N, --containers=N; for the peers (bench/peers):
// --only=peers or --only=peer-pgboss,peer-graphile,peer-bullmq, --peer-workloads=herd,steady,
// --peer-settings='{"bullmq":{"concurrency":100}}' (README.md in bench/results); for the handlers
// scenario (target kinds side by side): --handlers=N runs per kind, --handler-kinds=http,amqp,nats,pull.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { findRepoRoot } from '@belfry/db';
import { parseArgs } from './lib/args';
import { runInterruptCleanUps } from './lib/cleanup';
import { benchDatabase, releaseServer, serverVersion } from './lib/harness';
import { fmt } from './lib/stats';
import { lagHistogram, lagOverTime } from './lib/svg';
import { runHandlers, type HandlersResult } from './scenarios/handlers';
import { runHerd, type HerdResult } from './scenarios/herd';
import { runFailover, type FailoverResult } from './scenarios/failover';
import { runCreate, type CreateResult } from './scenarios/create';
import { runOverhead, type OverheadResult } from './scenarios/overhead';
import { runContainer, type ContainerResult } from './scenarios/container';
import { runPull, type PullResult } from './scenarios/pull';
import { runScale, type ScaleResult } from './scenarios/scale';
import { runSteady, type SteadyResult } from './scenarios/steady';
import { PEER_NAMES } from './peers/index';
import { comparePeers, peerRows, runPeers, type PeerResult } from './peers/report';

const { quick, want, wantPeer, P, peerWorkloads, peerSettings, handlerKinds } = (() => {
  try {
    return parseArgs(process.argv.slice(2));
  } catch (err) {
    process.stderr.write(`bench: ${(err as Error).message}\n`);
    process.exit(2);
  }
})();
const steadyRate = P.steadyRate;

const root = findRepoRoot();
const outDir = join(root, 'bench/results');
mkdirSync(outDir, { recursive: true });
const log = (m: string) => process.stderr.write(`[bench] ${m}\n`);

async function main() {
  const started = new Date();
  const results: Record<string, unknown> = {};
  let herd: HerdResult | undefined;
  let steady: SteadyResult | undefined;
  let overhead: OverheadResult | undefined;
  let fair: HerdResult | undefined;
  let fairHang: HerdResult | undefined;
  const scale: ScaleResult[] = [];

  if (want('herd')) {
    log(`herd: ${P.herd} jobs, 20 tenants, 2 engine nodes`);
    herd = await runHerd({ count: P.herd, tenants: 20, engines: 2, label: 'herd' });
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
    log(`steady: ${steadyRate} occurrences/s for ${P.steadySeconds} s`);
    steady = await runSteady({ perSecond: steadyRate, seconds: P.steadySeconds, engines: 2, tenants: 20 });
    const { points, lags, ...rest } = steady;
    results.steady = rest;
    writeFileSync(
      join(outDir, 'steady-lag-over-time.svg'),
      lagOverTime(`Steady ${steadyRate}/s: start lag over time`, points),
    );
    writeFileSync(
      join(outDir, 'steady-lag-histogram.svg'),
      lagHistogram(`Steady ${steadyRate}/s: start-lag distribution`, lags),
    );
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
    for (const n of P.scale) {
      log(`scale: loading ${n} jobs`);
      scale.push(await runScale({ jobs: n, due: 1_000, iterations: 30 }));
    }
    const [small, large] = scale;
    results.scale = {
      runs: scale,
      latencyRatioP50:
        small?.scan.p50 && large?.scan.p50 ? Math.round((large.scan.p50 / small.scan.p50) * 100) / 100 : null,
      latencyRatioP99:
        small?.scan.p99 && large?.scan.p99 ? Math.round((large.scan.p99 / small.scan.p99) * 100) / 100 : null,
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

  let peers: PeerResult[] = [];
  const peerNames = PEER_NAMES.filter(wantPeer);
  if (peerNames.length) {
    // After Belfry's own scenarios: the same workloads on the same machine, sink and server.
    peers = await runPeers(peerNames, {
      herd: P.herd,
      steadyRate,
      steadySeconds: P.steadySeconds,
      workers: 2, // as Belfry's two engine nodes
      workloads: peerWorkloads,
      overrides: peerSettings,
    });
  }
  const comparisons = comparePeers({ herd, steady }, peers);
  if (peers.length) results.peers = { runs: peers, belfryVsPeers: comparisons };

  if (serverVersion() === '?') {
    const probe = await benchDatabase(16);
    await probe.drop();
  }
  const postgresVersion = serverVersion();
  await releaseServer();

  let commit = '?';
  try {
    commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root }).toString().trim();
  } catch {
    // not a git checkout
  }
  const doc = {
    startedAt: started.toISOString(),
    quick,
    machine: {
      cores: cpus().length,
      cpu: cpus()[0]?.model ?? '?',
      memoryGiB: Math.round(totalmem() / 2 ** 30),
      postgres: postgresVersion,
      node: process.version,
    },
    commit,
    database: process.env.DATABASE_URL ? 'external (DATABASE_URL)' : 'embedded',
    results,
  };
  writeFileSync(join(outDir, 'latest.json'), `${JSON.stringify(doc, null, 2)}\n`);

  const rows: string[][] = [['scenario', 'figure', 'value', 'target']];
  if (herd) {
    rows.push(['herd', `jobs`, String(herd.parameters.jobs), '']);
    rows.push(['herd', 'materialized by the due time', `${herd.materializedAtDue ?? '-'}`, '']);
    rows.push(['herd', 'all materialized + enqueued (from due)', fmt(herd.materializedAllMs), '']);
    rows.push(['herd', 'all delivered (from due)', fmt(herd.deliveredAllMs), '≤ 30000 ms for 100K']);
    rows.push([
      'herd',
      'start lag p50/p95/p99/max',
      `${fmt(herd.lag.p50)} / ${fmt(herd.lag.p95)} / ${fmt(herd.lag.p99)} / ${fmt(herd.lag.max)}`,
      '',
    ]);
    rows.push(['herd', 'duplicates / missing', `${herd.duplicates} / ${herd.missing}`, '0 / 0']);
    rows.push(['herd', 'throughput', `${herd.deliveriesPerSecond ?? '-'} /s`, '']);
  }
  if (herdJitter) {
    rows.push(['herd-jitter', 'jobs / jitterSeconds', `${herdJitter.parameters.jobs} / ${P.herdJitter}`, '']);
    rows.push(['herd-jitter', 'all delivered (from nominal due)', fmt(herdJitter.deliveredAllMs), '']);
    rows.push([
      'herd-jitter',
      'start lag from dueAt p50/p95/p99/max',
      `${fmt(herdJitter.lag.p50)} / ${fmt(herdJitter.lag.p95)} / ${fmt(herdJitter.lag.p99)} / ${fmt(herdJitter.lag.max)}`,
      'p99 ≤ 1000 ms',
    ]);
    rows.push(['herd-jitter', 'duplicates / missing', `${herdJitter.duplicates} / ${herdJitter.missing}`, '0 / 0']);
  }
  if (steady) {
    rows.push(['steady', 'delivered / expected', `${steady.delivered} / ${steady.expected}`, '']);
    rows.push([
      'steady',
      'start lag p50/p95/p99/max',
      `${fmt(steady.lag.p50)} / ${fmt(steady.lag.p95)} / ${fmt(steady.lag.p99)} / ${fmt(steady.lag.max)}`,
      'p99 ≤ 250 ms',
    ]);
    rows.push([
      'steady',
      'start lag p50/p99 after the first 10 s',
      `${fmt(steady.lagAfterWarmup.p50)} / ${fmt(steady.lagAfterWarmup.p99)}`,
      '',
    ]);
    rows.push(['steady', 'duplicates / missing', `${steady.duplicates} / ${steady.missing}`, '0 / 0']);
    const t = steady.trend;
    rows.push(['steady', 'p99 first vs last 10 s', `${fmt(t[0]?.p99)} → ${fmt(t.at(-1)?.p99)}`, 'no drift']);
  }
  if (overhead) {
    const o = results.overhead as { belfryVsPgBoss: number | null; belfryVsPostgres: number | null };
    rows.push(['overhead', 'raw pg-boss send+fetch+complete', `${overhead.pgBossPerSecond} /s`, '']);
    rows.push(['overhead', 'raw PostgreSQL multi-row INSERT', `${overhead.postgresInsertPerSecond} /s`, '']);
    rows.push(['overhead', 'Belfry ÷ pg-boss', String(o.belfryVsPgBoss ?? '-'), '≥ 0.8']);
    rows.push(['overhead', 'Belfry ÷ PostgreSQL', String(o.belfryVsPostgres ?? '-'), '']);
  }
  for (const s of scale) {
    rows.push([`scale ${s.jobs}`, 'due scan p50/p99', `${s.scan.p50} / ${s.scan.p99} ms`, '']);
    rows.push([`scale ${s.jobs}`, 'bytes per job (jobs + schedule index)', String(s.bytesPerJob), '≤ 400']);
  }
  if (scale.length === 2) {
    const r = results.scale as { latencyRatioP50: number | null; latencyRatioP99: number | null };
    rows.push(['scale', 'large/small scan latency p50/p99', `${r.latencyRatioP50} / ${r.latencyRatioP99}`, '≤ 1.5']);
  }
  for (const [name, f] of [
    ['fairness', fair],
    ['fairness-hang', fairHang],
  ] as const) {
    if (!f) continue;
    const s = fairnessSummary(f);
    rows.push([name, 'small tenants start lag p99 (worst)', fmt(s.smallTenantsP99Max), '≤ 2000 ms']);
    rows.push([name, 'big tenant p50/p99', `${fmt(s.bigTenant?.p50)} / ${fmt(s.bigTenant?.p99)}`, '']);
    rows.push([name, 'duplicates / missing', `${f.duplicates} / ${f.missing}`, '0 / 0']);
  }
  if (container) {
    const c = container;
    rows.push(['container', 'occurrences succeeded', `${c.belfry.succeeded} / ${c.parameters.occurrences}`, '']);
    rows.push([
      'container',
      'bare docker run p50/p99',
      `${fmt(c.bare.startToExit.p50)} / ${fmt(c.bare.startToExit.p99)}`,
      '',
    ]);
    rows.push([
      'container',
      'Belfry start-to-exit p50/p99',
      `${fmt(c.belfry.startToExit.p50)} / ${fmt(c.belfry.startToExit.p99)}`,
      '',
    ]);
    rows.push(['container', 'added overhead p50/p99', `${fmt(c.overheadMs.p50)} / ${fmt(c.overheadMs.p99)}`, '']);
    rows.push(['container', 'Belfry ÷ bare p50', String(c.ratioP50 ?? '-'), '≤ 1.2']);
    rows.push(['container', 'runs/s Belfry / bare', `${c.belfry.perSecond} / ${c.bare.perSecond}`, '']);
  }
  if (pull) {
    rows.push(['pull', 'runs completed / due', `${pull.completed} / ${pull.parameters.jobs}`, '']);
    rows.push(['pull', 'completed through REST', `${pull.runsPerSecond ?? '-'} runs/s`, '≥ 1000 runs/s']);
    rows.push(['pull', 'start lag (claimed − due) p50/p99', `${fmt(pull.lag.p50)} / ${fmt(pull.lag.p99)}`, '']);
    rows.push(['pull', 'duplicates / missing', `${pull.duplicates} / ${pull.missing}`, '0 / 0']);
  }
  if (create) {
    rows.push(['create', 'jobs created / stored', `${create.created} / ${create.stored.jobs}`, '']);
    rows.push(['create', 'through POST /jobs/batch', `${create.jobsPerSecond} jobs/s`, '≥ 5000 jobs/s']);
    rows.push([
      'create',
      'request (1,000 jobs) p50/p99',
      `${fmt(create.requestMs.p50)} / ${fmt(create.requestMs.p99)}`,
      '',
    ]);
    rows.push([
      'create',
      'CPU per 1,000 jobs: API / PostgreSQL',
      `${fmt(create.cpuMsPer1000.api)} / ${fmt(create.cpuMsPer1000.postgres)}`,
      '',
    ]);
  }
  if (failover) {
    rows.push(['failover', 'occurrences delivered / expected', `${failover.delivered} / ${failover.expected}`, '']);
    rows.push(['failover', 'missing / duplicates', `${failover.missing} / ${failover.duplicates}`, '0 / 0']);
    rows.push([
      'failover',
      'partitions of the killed node taken over after',
      fmt(failover.takeoverMs),
      '≤ lease (15 s)',
    ]);
    rows.push([
      'failover',
      'lag p50/p99/max before kill',
      `${fmt(failover.lagBefore.p50)} / ${fmt(failover.lagBefore.p99)} / ${fmt(failover.lagBefore.max)}`,
      '',
    ]);
    rows.push([
      'failover',
      'lag p50/p99/max after kill',
      `${fmt(failover.lagAfterKill.p50)} / ${fmt(failover.lagAfterKill.p99)} / ${fmt(failover.lagAfterKill.max)}`,
      '',
    ]);
  }
  for (const k of handlers?.kinds ?? []) {
    const name = `handlers ${k.kind}`;
    if (k.error) {
      rows.push([name, 'not run', k.error, '']);
      continue;
    }
    const target = k.kind === 'http' ? '' : k.kind === 'pull' ? '≥ 1000 /s' : '≥ http';
    rows.push([name, 'runs/s', `${k.runsPerSecond ?? '-'} /s (${k.runs} runs)`, target]);
    rows.push([name, 'start lag p50/p99', `${fmt(k.lag.p50)} / ${fmt(k.lag.p99)}`, '']);
    rows.push([name, 'duplicates / missing', `${k.duplicates} / ${k.missing}`, '0 / 0']);
  }
  rows.push(...peerRows(peers, comparisons));
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
  const line = (r: string[]) => r.map((c, i) => c.padEnd(widths[i] ?? 0)).join('  ');
  process.stdout.write(
    `\nBelfry bench (${quick ? 'quick' : 'full'}), ${doc.machine.cores} cores, PostgreSQL ${postgresVersion}, commit ${commit}\n\n`,
  );
  process.stdout.write(`${line(rows[0] ?? [])}\n${widths.map((w) => '-'.repeat(w)).join('  ')}\n`);
  for (const r of rows.slice(1)) process.stdout.write(`${line(r)}\n`);
  process.stdout.write(`\nwritten: bench/results/latest.json and bench/results/*.svg\n`);
  const failed = peers.filter((p) => p.error);
  if (failed.length) throw new Error(`peer scenarios failed: ${failed.map((p) => `${p.peer}: ${p.error}`).join('; ')}`);
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    log(`${signal}: cleaning up`);
    void runInterruptCleanUps()
      .then(() => releaseServer())
      .finally(() => process.exit(130));
  });
}

main().then(
  () => process.exit(0),
  async (err) => {
    process.stderr.write(`bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    await runInterruptCleanUps();
    await releaseServer().catch(() => {});
    process.exit(1);
  },
);

/** The fairness figures of a skewed herd: tenants[0] is the big (or hanging) one. */
function fairnessSummary(herd: HerdResult) {
  const { points, lags, lagByTenant, ...rest } = herd;
  const bigId = herd.parameters.bigTenant as string;
  const small = Object.entries(lagByTenant).filter(([t]) => t !== bigId);
  const smallLags = small.map(([, s]) => s.p99 ?? 0);
  return {
    ...rest,
    // A hanging tenant's runs never finish: what reached its target says nothing of lag.
    bigTenant: herd.parameters.hangBig ? null : (lagByTenant[bigId] ?? null),
    smallTenantsP99Max: smallLags.length ? Math.max(...smallLags) : null,
    smallTenants: Object.fromEntries(small),
  };
}
