// Runs the selected peers one after another and sets their figures beside Belfry's: the
// throughput ratio on the herd and the steady p99 start lag, in latest.json and the table.
import type { HerdResult } from '../scenarios/herd';
import { type PeerHerdResult, type PeerSteadyResult, runPeerHerd, runPeerSteady } from '../scenarios/peers';
import type { SteadyResult } from '../scenarios/steady';
import { fmt } from '../lib/stats';
import { loadPeer, resolveSettings } from './index';
import type { PeerName, Settings } from './types';

export interface PeerResult {
  peer: PeerName;
  title: string;
  settings: Settings;
  herd: PeerHerdResult | null;
  steady: PeerSteadyResult | null;
  /** set when a workload failed; the other peers still ran */
  error: string | null;
}

export interface PeerComparison {
  peer: PeerName;
  /** Belfry's herd throughput ÷ the peer's (> 1: Belfry ahead) */
  herdThroughputRatio: number | null;
  /** the peer's all-delivered time ÷ Belfry's (> 1: Belfry done sooner) */
  herdDeliveredAllRatio: number | null;
  /**
   * CPU ms per 1,000 runs from the due time to the last delivery, Belfry's engines and its
   * database's backends against the peer's workers and store: the same window for both, each
   * herd being in place before it (Belfry's materialized, the peer's enqueued)
   */
  herdCpuPer1000FromDue: {
    belfry: { workers: number; store: number } | null;
    peer: { workers: number | null; store: number | null } | null;
  };
  /**
   * The sink's CPU ms per 1,000 runs over the same window, in Belfry's herd and the peer's. The
   * sink does the same for every request, but its CPU per request is not only the machine's
   * pace: it is also the client's (headers, connections). Shown, not used in a ratio.
   */
  herdSinkCpuPer1000FromDue: { belfry: number | null; peer: number | null };
  steadyP99: { belfry: number | null; peer: number | null; belfryAtMostPeer: boolean | null };
  steadyP99AfterWarmup: { belfry: number | null; peer: number | null; belfryAtMostPeer: boolean | null };
}

const log = (m: string) => process.stderr.write(`[bench] ${m}\n`);
const ratio = (a: number | null | undefined, b: number | null | undefined) =>
  a && b ? Math.round((a / b) * 100) / 100 : null;
const ms = (v: number | null) => (v === null ? '-' : String(Math.round(v)));
const atMost = (a: number | null | undefined, b: number | null | undefined) =>
  a === null || a === undefined || b === null || b === undefined ? null : a <= b;

export async function runPeers(
  names: PeerName[],
  o: {
    herd: number;
    steadyRate: number;
    steadySeconds: number;
    workers: number;
    workloads: Set<string>;
    overrides: unknown;
  },
): Promise<PeerResult[]> {
  const results: PeerResult[] = [];
  for (const name of names) {
    const driver = await loadPeer(name);
    const settings = resolveSettings(driver, o.overrides);
    const result: PeerResult = { peer: name, title: driver.title, settings, herd: null, steady: null, error: null };
    results.push(result);
    try {
      if (o.workloads.has('herd')) {
        log(`peer ${driver.title}: herd of ${o.herd}, ${o.workers} worker processes, ${JSON.stringify(settings)}`);
        result.herd = await runPeerHerd(driver, settings, { count: o.herd, workers: o.workers });
      }
      if (o.workloads.has('steady')) {
        log(`peer ${driver.title}: steady ${o.steadyRate}/s for ${o.steadySeconds} s`);
        result.steady = await runPeerSteady(driver, settings, {
          perSecond: o.steadyRate,
          seconds: o.steadySeconds,
          workers: o.workers,
        });
      }
    } catch (err) {
      result.error = err instanceof Error ? err.message : String(err);
      log(`peer ${driver.title} failed: ${result.error}`);
    }
  }
  return results;
}

export function comparePeers(belfry: { herd?: HerdResult; steady?: SteadyResult }, peers: PeerResult[]) {
  return peers.map(
    (p): PeerComparison => ({
      peer: p.peer,
      herdThroughputRatio: ratio(belfry.herd?.deliveriesPerSecond, p.herd?.deliveriesPerSecond),
      herdDeliveredAllRatio: ratio(p.herd?.deliveredAllMs, belfry.herd?.deliveredAllMs),
      herdCpuPer1000FromDue: {
        belfry: belfry.herd?.cpuFromDue
          ? {
              workers: belfry.herd.cpuFromDue.per1000Runs.engines,
              store: belfry.herd.cpuFromDue.per1000Runs.postgresBackends,
            }
          : null,
        peer: p.herd ? { workers: p.herd.cpu.workersPer1000, store: p.herd.cpu.serverPer1000 } : null,
      },
      herdSinkCpuPer1000FromDue: {
        belfry: belfry.herd?.cpuFromDue?.per1000Runs.sink ?? null,
        peer: p.herd?.cpu.sinkPer1000 ?? null,
      },
      steadyP99: {
        belfry: belfry.steady?.lag.p99 ?? null,
        peer: p.steady?.lag.p99 ?? null,
        belfryAtMostPeer: atMost(belfry.steady?.lag.p99, p.steady?.lag.p99),
      },
      steadyP99AfterWarmup: {
        belfry: belfry.steady?.lagAfterWarmup.p99 ?? null,
        peer: p.steady?.lagAfterWarmup.p99 ?? null,
        belfryAtMostPeer: atMost(belfry.steady?.lagAfterWarmup.p99, p.steady?.lagAfterWarmup.p99),
      },
    }),
  );
}

/** Table rows: each peer's figures, then Belfry ÷ it. */
export function peerRows(peers: PeerResult[], comparisons: PeerComparison[]): string[][] {
  const rows: string[][] = [];
  for (const p of peers) {
    const name = `peer ${p.title}`;
    if (p.error) rows.push([name, 'FAILED', p.error.slice(0, 80), '']);
    const h = p.herd;
    if (h) {
      if (h.readyBeforeDueMs < 0)
        rows.push([name, 'INVALID herd: enqueued after its due time by', fmt(-h.readyBeforeDueMs), '']);
      rows.push([name, 'herd all delivered (from due)', fmt(h.deliveredAllMs), '']);
      rows.push([name, 'herd throughput', `${h.deliveriesPerSecond ?? '-'} /s`, '']);
      rows.push([name, 'herd start lag p50/p99', `${fmt(h.lag.p50)} / ${fmt(h.lag.p99)}`, '']);
      rows.push([name, 'herd duplicates / missing', `${h.duplicates} / ${h.missing}`, '0 / 0']);
      rows.push([
        name,
        'herd CPU per 1,000 runs: workers / store',
        `${fmt(h.cpu.workersPer1000)} / ${fmt(h.cpu.serverPer1000)}`,
        '',
      ]);
    }
    const s = p.steady;
    if (s) {
      rows.push([name, 'steady delivered / expected', `${s.delivered} / ${s.expected}`, '']);
      rows.push([name, 'steady start lag p50/p99', `${fmt(s.lag.p50)} / ${fmt(s.lag.p99)}`, '']);
      rows.push([
        name,
        'steady p50/p99 after the first 10 s',
        `${fmt(s.lagAfterWarmup.p50)} / ${fmt(s.lagAfterWarmup.p99)}`,
        '',
      ]);
      rows.push([name, 'steady duplicates / missing', `${s.duplicates} / ${s.missing}`, '0 / 0']);
    }
    const c = comparisons.find((x) => x.peer === p.peer);
    if (c?.herdThroughputRatio !== null && c?.herdThroughputRatio !== undefined)
      rows.push([name, 'Belfry ÷ peer, herd throughput', String(c.herdThroughputRatio), '≥ 1']);
    const cpu = c?.herdCpuPer1000FromDue;
    if (cpu?.belfry && cpu.peer)
      rows.push([
        name,
        'herd CPU per 1,000 runs from due, Belfry vs peer: workers / store',
        `${ms(cpu.belfry.workers)} / ${ms(cpu.belfry.store)} vs ${ms(cpu.peer.workers)} / ${ms(cpu.peer.store)} ms`,
        '',
      ]);
    const sink = c?.herdSinkCpuPer1000FromDue;
    if (sink?.belfry != null && sink.peer != null)
      rows.push([
        name,
        'herd sink CPU per 1,000 runs from due, Belfry vs peer',
        `${ms(sink.belfry)} vs ${ms(sink.peer)} ms`,
        '',
      ]);
    if (c?.steadyP99.belfry != null && c.steadyP99.peer != null)
      rows.push([
        name,
        'steady p99 Belfry vs peer (after 10 s)',
        `${fmt(c.steadyP99.belfry)} vs ${fmt(c.steadyP99.peer)} (${fmt(c.steadyP99AfterWarmup.belfry)} vs ${fmt(c.steadyP99AfterWarmup.peer)})`,
        'Belfry ≤ peer',
      ]);
  }
  return rows;
}
