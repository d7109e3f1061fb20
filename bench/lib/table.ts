// The bench's summary table: one row per figure of each scenario that ran (scenario, figure,
// value, target), printed under a heading after bench/run.ts has written latest.json.
import type { HandlersResult } from '../scenarios/handlers';
import type { HerdResult } from '../scenarios/herd';
import type { FailoverResult } from '../scenarios/failover';
import type { ContainerResult } from '../scenarios/container';
import type { CreateResult } from '../scenarios/create';
import type { OverheadResult } from '../scenarios/overhead';
import type { PullResult } from '../scenarios/pull';
import type { ScaleResult } from '../scenarios/scale';
import type { SteadyResult } from '../scenarios/steady';
import type { KneeResult } from '../scenarios/knee';
import type { Sizing } from './sizing';
import { type PeerComparison, type PeerResult, peerRows } from '../peers/report';
import { fmt } from './stats';

/** What the scenarios that ran measured; unset: the scenario did not run. */
export interface BenchFigures {
  herd?: HerdResult | undefined;
  herdJitter?: HerdResult | undefined;
  /** the herd-jitter scenario's jitterSeconds */
  herdJitterSeconds: number;
  steady?: SteadyResult | undefined;
  knee?: KneeResult | undefined;
  /** derived from the herd and scale figures (bench/lib/sizing.ts) */
  sizing?: Sizing | undefined;
  overhead?: OverheadResult | undefined;
  scale: ScaleResult[];
  fair?: HerdResult | undefined;
  fairHang?: HerdResult | undefined;
  create?: CreateResult | undefined;
  failover?: FailoverResult | undefined;
  container?: ContainerResult | undefined;
  pull?: PullResult | undefined;
  handlers?: HandlersResult | undefined;
  peers: PeerResult[];
  comparisons: PeerComparison[];
  /** latest.json's results: the derived ratios (overhead, scale) are read from there */
  results: Record<string, unknown>;
}

export function summaryRows(f: BenchFigures): string[][] {
  const {
    herd,
    herdJitter,
    steady,
    knee,
    sizing: sized,
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
  } = f;
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
    const c = herd.cpu;
    if (c) {
      const p = c.per1000Runs;
      rows.push([
        'herd',
        'CPU per 1,000 runs: engines / PG backends / PG all / sink',
        `${p.engines} / ${p.postgresBackends} / ${p.postgresAll} / ${p.sink} ms`,
        '',
      ]);
      rows.push([
        'herd',
        'cores used: engines / PG all / sink / total',
        `${c.cores.engines} / ${c.cores.postgresAll} / ${c.cores.sink} / ${c.cores.total} (idle: ${c.idleCores.engines} / ${c.idleCores.postgresAll})`,
        '',
      ]);
      rows.push([
        'herd',
        'WAL / run history per run',
        `${c.walBytesPerRun ?? '-'} / ${herd.historyBytesPerRun ?? '-'} bytes`,
        '',
      ]);
    }
  }
  if (herdJitter) {
    rows.push(['herd-jitter', 'jobs / jitterSeconds', `${herdJitter.parameters.jobs} / ${f.herdJitterSeconds}`, '']);
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
  if (knee) {
    for (const s of knee.steps) {
      rows.push([
        'knee',
        `${s.rate}/s: delivered, p50/p99 (after 10 s)`,
        `${s.delivered} / ${s.expected}, ${fmt(s.lag.p50)} / ${fmt(s.lag.p99)} (${fmt(s.lagAfterWarmup.p50)} / ${fmt(s.lagAfterWarmup.p99)}) ${s.holds ? 'holds' : 'FAILS'}`,
        '',
      ]);
    }
    rows.push([
      'knee',
      `highest rate held ${knee.parameters.seconds} s, p99 ≤ 1 s`,
      `${knee.knee ?? 'none'} /s${knee.firstFail ? ` (fails at ${knee.firstFail}/s)` : ''}`,
      '≥ 3000 /s',
    ]);
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
    const cpu = pull.cpuMsPer1000;
    if (cpu) {
      rows.push([
        'pull',
        'CPU ms per 1,000 runs: API / database / workers',
        `${cpu.api ?? '-'} / ${cpu.database} / ${cpu.workers}`,
        '',
      ]);
    }
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
  if (sized) rows.push(...sizingRows(sized));
  rows.push(...peerRows(f.peers, f.comparisons));
  return rows;
}

function sizingRows(s: Sizing): string[][] {
  const t = s.target;
  const rate = `${t.perSecond.toLocaleString('en')}/s`;
  const n = (v: number | null | undefined, unit: string) => (v === null || v === undefined ? '-' : `${v} ${unit}`);
  return [
    [
      'sizing',
      `engine for ${rate} (${t.utilisation * 100} % per core)`,
      s.engine ? `${s.engine.busyCores} busy cores → ${s.engine.cores} cores, ${s.engine.nodes} nodes` : '-',
      '',
    ],
    [
      'sizing',
      `PostgreSQL for ${rate}`,
      s.postgres
        ? `${s.postgres.busyCores} busy cores → ${s.postgres.cores} cores, WAL ${n(s.postgres.walMBPerSecond, 'MB/s')}`
        : '-',
      '',
    ],
    ['sizing', `disk for ${(t.jobs / 1e6).toLocaleString('en')}M jobs (jobs + schedule)`, n(s.jobsDiskGB, 'GB'), ''],
    ['sizing', `hot memory for ${(t.jobs / 1e6).toLocaleString('en')}M jobs`, n(s.hotMemoryGB, 'GB'), ''],
    [
      'sizing',
      `run history at ${rate}, ${t.retentionDays} days`,
      `${n(s.historyDiskGBPerDay, 'GB/day')}, ${n(s.historyDiskGB, 'GB')}`,
      '',
    ],
  ];
}

/** The rows as an aligned table under `heading`, on stdout. */
export function printTable(heading: string, rows: string[][]): void {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
  const line = (r: string[]) => r.map((c, i) => c.padEnd(widths[i] ?? 0)).join('  ');
  process.stdout.write(`\n${heading}\n\n`);
  process.stdout.write(`${line(rows[0] ?? [])}\n${widths.map((w) => '-'.repeat(w)).join('  ')}\n`);
  for (const r of rows.slice(1)) process.stdout.write(`${line(r)}\n`);
}

/** The fairness figures of a skewed herd: tenants[0] is the big (or hanging) one. */
export function fairnessSummary(herd: HerdResult) {
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
