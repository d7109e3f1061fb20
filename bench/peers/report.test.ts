import { describe, expect, it } from 'vitest';
import type { HerdCpu } from '../lib/herd-cpu';
import type { HerdResult } from '../scenarios/herd';
import { comparePeers, type PeerResult, peerRows } from './report';

// CPU figures of one window: ms per 1,000 runs as given, the rest derived for 100,000 runs
function herdCpu(per1000Runs: HerdCpu['per1000Runs'], windowMs: number): HerdCpu {
  const ms = {
    engines: per1000Runs.engines * 100,
    postgresBackends: per1000Runs.postgresBackends * 100,
    postgresAll: per1000Runs.postgresAll * 100,
    sink: per1000Runs.sink * 100,
  };
  const cores = (v: number) => Math.round((v / windowMs) * 100) / 100;
  return {
    runs: 100_000,
    windowMs,
    ms,
    per1000Runs,
    cores: {
      engines: cores(ms.engines),
      postgresBackends: cores(ms.postgresBackends),
      postgresAll: cores(ms.postgresAll),
      sink: cores(ms.sink),
      total: cores(ms.engines + ms.postgresAll + ms.sink),
    },
    idleCores: { engines: 0.02, postgresAll: 0.03 },
    walBytesPerRun: 3_400,
  };
}

// Belfry's herd as the comparison reads it: throughput, all-delivered time and both CPU windows
const belfryHerd = {
  deliveriesPerSecond: 6_000,
  deliveredAllMs: 16_500,
  // the whole herd, its materializing before the due time included
  cpu: herdCpu({ engines: 146, postgresBackends: 220, postgresAll: 221, sink: 37 }, 28_500),
  cpuFromDue: herdCpu({ engines: 117, postgresBackends: 156, postgresAll: 157, sink: 37 }, 16_500),
} as HerdResult;

const graphile = {
  peer: 'graphile',
  title: 'graphile-worker 0.18.0',
  settings: {},
  herd: {
    deliveriesPerSecond: 13_500,
    deliveredAllMs: 7_400,
    readyBeforeDueMs: 2_000,
    lag: { p50: 4_300, p99: 7_400 },
    duplicates: 0,
    missing: 0,
    cpu: { workersPer1000: 82, serverPer1000: 22, sinkPer1000: 26 },
  },
  steady: null,
  error: null,
} as unknown as PeerResult;

describe('Belfry beside a peer', () => {
  it("sets Belfry's CPU from the due time beside the peer's: engines against workers, the database's backends against the store", () => {
    const [c] = comparePeers({ herd: belfryHerd }, [graphile]);
    expect(c?.herdThroughputRatio).toBe(0.44);
    expect(c?.herdCpuPer1000FromDue).toEqual({
      belfry: { workers: 117, store: 156 },
      peer: { workers: 82, store: 22 },
    });
    const rows = peerRows([graphile], c ? [c] : []);
    expect(rows).toContainEqual([
      'peer graphile-worker 0.18.0',
      'herd CPU per 1,000 runs from due, Belfry vs peer: workers / store',
      '117 / 156 vs 82 / 22 ms',
      '',
    ]);
  });

  it('leaves the row out when Belfry has no figures from the due time', () => {
    const [c] = comparePeers({ herd: { ...belfryHerd, cpuFromDue: null } }, [graphile]);
    expect(c?.herdCpuPer1000FromDue.belfry).toBeNull();
    const rows = peerRows([graphile], c ? [c] : []);
    expect(rows.some((r) => r[1]?.startsWith('herd CPU per 1,000 runs from due'))).toBe(false);
  });

  it("sets the sink's CPU in Belfry's herd beside the sink's in the peer's", () => {
    const [c] = comparePeers({ herd: belfryHerd }, [graphile]);
    expect(c?.herdSinkCpuPer1000FromDue).toEqual({ belfry: 37, peer: 26 });
    const rows = peerRows([graphile], c ? [c] : []);
    expect(rows).toContainEqual([
      'peer graphile-worker 0.18.0',
      'herd sink CPU per 1,000 runs from due, Belfry vs peer',
      '37 vs 26 ms',
      '',
    ]);
  });

  it("leaves the sink's row out for a peer's herd measured without its sink (results before stop 50)", () => {
    const old = {
      ...graphile,
      herd: { ...graphile.herd, cpu: { workersPer1000: 82, serverPer1000: 22 } },
    } as PeerResult;
    const [c] = comparePeers({ herd: belfryHerd }, [old]);
    expect(c?.herdSinkCpuPer1000FromDue).toEqual({ belfry: 37, peer: null });
    const rows = peerRows([old], c ? [c] : []);
    expect(rows.some((r) => r[1]?.startsWith('herd sink CPU'))).toBe(false);
  });
});
