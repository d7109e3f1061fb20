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
import type { HerdCpu } from './herd-cpu';
import type { Sizing } from './sizing';
import { type PeerComparison, type PeerResult, peerRows } from '../peers/report';
import { failedText } from './knee';
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

type Add = (figure: string, value: string, target?: string) => void;

/** Appends the rows of one scenario: its figure, the value and the target (none unless given). */
function adder(rows: string[][], scenario: string): Add {
  return (figure, value, target = '') => {
    rows.push([scenario, figure, value, target]);
  };
}

/** A herd window's CPU per 1,000 runs and cores used (`label` before each figure, `after` the cores). */
function herdCpuRows(add: Add, label: string, c: HerdCpu, after = ''): void {
  const p = c.per1000Runs;
  add(
    `${label}CPU per 1,000 runs: engines / PG backends / PG all / sink`,
    `${p.engines} / ${p.postgresBackends} / ${p.postgresAll} / ${p.sink} ms`,
  );
  add(
    `${label}cores used: engines / PG all / sink / total`,
    `${c.cores.engines} / ${c.cores.postgresAll} / ${c.cores.sink} / ${c.cores.total}${after}`,
  );
}

type Percentile = 'p50' | 'p95' | 'p99' | 'max';

/** The given percentiles of a latency summary, e.g. "12 ms / 40 ms". */
function lagText(lag: Partial<Record<Percentile, number | null>> | null | undefined, ...at: Percentile[]): string {
  return at.map((p) => fmt(lag?.[p])).join(' / ');
}

/** Every scenario's exactly-once row: none duplicated, none missing. */
function exactlyOnce(add: Add, r: { duplicates: number; missing: number }): void {
  add('duplicates / missing', `${r.duplicates} / ${r.missing}`, '0 / 0');
}

export function summaryRows(f: BenchFigures): string[][] {
  const rows: string[][] = [['scenario', 'figure', 'value', 'target']];
  const section = (scenario: string) => adder(rows, scenario);
  const { herd, herdJitter, steady, knee, overhead, scale, create, failover, container, pull, results } = f;
  if (herd) {
    const add = section('herd');
    add('jobs', String(herd.parameters.jobs));
    add('materialized by the due time', `${herd.materializedAtDue ?? '-'}`);
    add('all materialized + enqueued (from due)', fmt(herd.materializedAllMs));
    add('all delivered (from due)', fmt(herd.deliveredAllMs), '≤ 20000 ms for 100K');
    add('start lag p50/p95/p99/max', lagText(herd.lag, 'p50', 'p95', 'p99', 'max'));
    exactlyOnce(add, herd);
    add('throughput', `${herd.deliveriesPerSecond ?? '-'} /s`);
    const c = herd.cpu;
    if (c) {
      herdCpuRows(add, '', c, ` (idle: ${c.idleCores.engines} / ${c.idleCores.postgresAll})`);
      add('WAL / run history per run', `${c.walBytesPerRun ?? '-'} / ${herd.historyBytesPerRun ?? '-'} bytes`);
    }
    if (herd.cpuFromDue) herdCpuRows(add, 'from due: ', herd.cpuFromDue);
  }
  if (herdJitter) {
    const add = section('herd-jitter');
    add('jobs / jitterSeconds', `${herdJitter.parameters.jobs} / ${f.herdJitterSeconds}`);
    add('all delivered (from nominal due)', fmt(herdJitter.deliveredAllMs));
    add('start lag from dueAt p50/p95/p99/max', lagText(herdJitter.lag, 'p50', 'p95', 'p99', 'max'), 'p99 ≤ 1000 ms');
    exactlyOnce(add, herdJitter);
  }
  if (steady) {
    const add = section('steady');
    // delivered counts first attempts (the lag is theirs); an occurrence whose first attempt
    // never reached the sink and that arrived on a retry shows here, not as missing.
    const laterOnly = steady.expected - steady.missing - steady.delivered;
    add(
      'first attempts delivered / expected',
      `${steady.delivered} / ${steady.expected}${laterOnly > 0 ? ` (${laterOnly} arrived only on a later attempt)` : ''}`,
    );
    add('start lag p50/p95/p99/max', lagText(steady.lag, 'p50', 'p95', 'p99', 'max'), 'p99 ≤ 250 ms');
    add('start lag p50/p99 after the first 10 s', lagText(steady.lagAfterWarmup, 'p50', 'p99'));
    exactlyOnce(add, steady);
    if (steady.failedAttempts.length) add('attempts failed, by error', failedText(steady.failedAttempts));
    const t = steady.trend;
    add('p99 first vs last 10 s', `${fmt(t[0]?.p99)} → ${fmt(t.at(-1)?.p99)}`, 'no drift');
  }
  if (knee) {
    const add = section('knee');
    for (const s of knee.steps) {
      add(
        `${s.rate}/s: delivered, p50/p99 (after 10 s)`,
        `${s.delivered} / ${s.expected}, ${lagText(s.lag, 'p50', 'p99')} (${lagText(s.lagAfterWarmup, 'p50', 'p99')}) ${s.holds ? 'holds' : 'FAILS'}`,
      );
      if (s.failedAttempts.length) add(`${s.rate}/s: attempts failed, by error`, failedText(s.failedAttempts));
    }
    add(
      `highest rate held ${knee.parameters.seconds} s, p99 ≤ 1 s`,
      `${knee.knee ?? 'none'} /s${knee.firstFail ? ` (fails at ${knee.firstFail}/s)` : ''}`,
      '≥ 3000 /s',
    );
  }
  if (overhead) {
    const add = section('overhead');
    const o = results.overhead as { belfryVsPgBoss: number | null; belfryVsPostgres: number | null };
    add('raw pg-boss send+fetch+complete', `${overhead.pgBossPerSecond} /s`);
    add('raw PostgreSQL multi-row INSERT', `${overhead.postgresInsertPerSecond} /s`);
    add('Belfry ÷ pg-boss', String(o.belfryVsPgBoss ?? '-'), '≥ 0.8');
    add('Belfry ÷ PostgreSQL', String(o.belfryVsPostgres ?? '-'));
  }
  for (const s of scale) {
    const add = section(`scale ${s.jobs}`);
    add(
      'due scan p50/p99 in turns (rows per scan)',
      `${s.scan.p50} / ${s.scan.p99} ms (${(s.scanRows ?? []).join(', ')})`,
    );
    add('due scan p50/p99 back to back', `${s.scanBackToBack.p50} / ${s.scanBackToBack.p99} ms`);
    add('bytes per job (jobs + schedule index)', String(s.bytesPerJob), '≤ 400');
  }
  if (scale.length === 2) {
    const r = results.scale as {
      latencyRatioP50: number | null;
      latencyRatioP99: number | null;
      backToBackRatioP50: number | null;
      backToBackRatioP99: number | null;
    };
    section('scale')(
      'large/small scan latency p50/p99 in turns',
      `${r.latencyRatioP50} / ${r.latencyRatioP99}`,
      '≤ 1.5',
    );
    section('scale')('large/small p50/p99 back to back', `${r.backToBackRatioP50} / ${r.backToBackRatioP99}`);
  }
  for (const [name, fair] of [
    ['fairness', f.fair],
    ['fairness-hang', f.fairHang],
  ] as const) {
    if (!fair) continue;
    const add = section(name);
    const s = fairnessSummary(fair);
    add('small tenants start lag p99 (worst)', fmt(s.smallTenantsP99Max), '≤ 2000 ms');
    add('big tenant p50/p99', lagText(s.bigTenant, 'p50', 'p99'));
    exactlyOnce(add, fair);
  }
  if (create) {
    const add = section('create');
    add('jobs created / stored', `${create.created} / ${create.stored.jobs}`);
    add('through POST /jobs/batch', `${create.jobsPerSecond} jobs/s`, '≥ 5000 jobs/s');
    add('request (1,000 jobs) p50/p99', lagText(create.requestMs, 'p50', 'p99'));
    add(
      'CPU per 1,000 jobs: API / PostgreSQL',
      `${fmt(create.cpuMsPer1000.api)} / ${fmt(create.cpuMsPer1000.postgres)}`,
    );
  }
  if (failover) {
    const add = section('failover');
    add('occurrences delivered / expected', `${failover.delivered} / ${failover.expected}`);
    add('missing / duplicates', `${failover.missing} / ${failover.duplicates}`, '0 / 0');
    add('partitions of the killed node taken over after', fmt(failover.takeoverMs), '≤ lease (15 s)');
    add('lag p50/p99/max before kill', lagText(failover.lagBefore, 'p50', 'p99', 'max'));
    add('lag p50/p99/max after kill', lagText(failover.lagAfterKill, 'p50', 'p99', 'max'));
  }
  if (container) {
    const add = section('container');
    const c = container;
    add('occurrences succeeded', `${c.belfry.succeeded} / ${c.parameters.occurrences}`);
    add('bare docker run p50/p99', lagText(c.bare.startToExit, 'p50', 'p99'));
    add('Belfry start-to-exit p50/p99', lagText(c.belfry.startToExit, 'p50', 'p99'));
    add('added overhead p50/p99', lagText(c.overheadMs, 'p50', 'p99'));
    add('Belfry ÷ bare p50', String(c.ratioP50 ?? '-'), '≤ 1.2');
    add('runs/s Belfry / bare', `${c.belfry.perSecond} / ${c.bare.perSecond}`);
  }
  if (pull) {
    const add = section('pull');
    add('runs completed / due', `${pull.completed} / ${pull.parameters.jobs}`);
    add('completed through REST', `${pull.runsPerSecond ?? '-'} runs/s`, '≥ 1000 runs/s');
    add('start lag (claimed − due) p50/p99', lagText(pull.lag, 'p50', 'p99'));
    exactlyOnce(add, pull);
    const cpu = pull.cpuMsPer1000;
    if (cpu) {
      add('CPU ms per 1,000 runs: API / database / workers', `${cpu.api ?? '-'} / ${cpu.database} / ${cpu.workers}`);
    }
  }
  for (const k of f.handlers?.kinds ?? []) {
    const add = section(`handlers ${k.kind}`);
    if (k.error) {
      add('not run', k.error);
      continue;
    }
    const target = k.kind === 'http' ? '' : k.kind === 'pull' ? '≥ 1000 /s' : '≥ http';
    add('runs/s', `${k.runsPerSecond ?? '-'} /s (${k.runs} runs)`, target);
    add('start lag p50/p99', lagText(k.lag, 'p50', 'p99'));
    exactlyOnce(add, k);
  }
  if (f.sizing) rows.push(...sizingRows(f.sizing));
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
