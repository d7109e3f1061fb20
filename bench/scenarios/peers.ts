// Peers: Belfry's herd and steady workloads run by a queue library instead (bench/peers), in
// the same bench run, on the same sink process and the same PostgreSQL server (a database of
// their own) or the machine's Redis, with as many worker processes as Belfry has engine nodes.
// The figures come from the sink's records through the same code as Belfry's (lib/figures).
import { type HerdFigures, herdFigures, type SteadyFigures, steadyFigures, waitForWindow } from '../lib/figures';
import { onInterrupt } from '../lib/cleanup';
import { cpuMeter } from '../lib/proc';
import { type Sink, startSink } from '../lib/harness';
import { startPeerWorkers, type PeerProcesses } from '../peers/processes';
import type { PeerDriver, PeerJob, PeerStore, Settings } from '../peers/types';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const log = (m: string) => process.stderr.write(`[bench] ${m}\n`);
const CHUNK = 1_000;

export type PeerHerdResult = Omit<HerdFigures, 'points' | 'lags' | 'first'> & {
  parameters: Record<string, unknown>;
  server: Record<string, string>;
  /** time to enqueue the herd (producer in the bench process, chunks of 1,000) */
  enqueueMs: number;
  /** how long before the due time the herd was enqueued and settled (negative: late, invalid) */
  readyBeforeDueMs: number;
  cpu: CpuFigures;
};

export type PeerSteadyResult = Omit<SteadyFigures, 'points' | 'lags'> & {
  parameters: Record<string, unknown>;
  server: Record<string, string>;
  /** seconds whose jobs were not all enqueued by their due time (should be 0) */
  lateEnqueues: number;
  cpu: CpuFigures;
};

/**
 * CPU (ms) per 1,000 deliveries over the measured window: the worker processes, the store's
 * server processes (the PostgreSQL backends of the peer's database, or the Redis server), and
 * the sink (the same work per delivery for every peer and for Belfry: the machine's pace at the
 * time, report.ts). A busy machine moves these far less than it moves throughput.
 */
export interface CpuFigures {
  workersPer1000: number | null;
  serverPer1000: number | null;
  /** absent in results written before 2026-12-07 (stop 50) */
  sinkPer1000?: number | null;
}

function meters(store: PeerStore, processes: PeerProcesses, sink: Sink) {
  const workers = cpuMeter();
  const server = cpuMeter();
  const receiver = cpuMeter();
  const workerPids = () => processes.pids().filter((p): p is number => p !== undefined);
  const sinkPids = () => (sink.pid === undefined ? [] : [sink.pid]);
  return {
    async start() {
      workers.start(workerPids());
      server.start(await store.serverPids());
      receiver.start(sinkPids());
    },
    async figures(deliveries: number): Promise<CpuFigures> {
      const per1000 = (ms: number) => (deliveries > 0 ? Math.round((ms / deliveries) * 1000) : null);
      return {
        workersPer1000: per1000(workers.elapsed(workerPids())),
        serverPer1000: per1000(server.elapsed(await store.serverPids())),
        sinkPer1000: sink.pid === undefined ? null : per1000(receiver.elapsed(sinkPids())),
      };
    },
  };
}

/** Sink, store and worker processes for one workload; all removed afterwards, whatever happens. */
async function withPeer<T>(
  driver: PeerDriver<Settings>,
  settings: Settings,
  workers: number,
  fn: (store: PeerStore, sink: Sink, processes: PeerProcesses) => Promise<T>,
): Promise<T> {
  let sink: Sink | undefined;
  let store: PeerStore | undefined;
  let processes: PeerProcesses | undefined;
  let cleaning: Promise<void> | undefined;
  const cleanUp = () => {
    cleaning ??= (async () => {
      await processes?.stop().catch((err) => log(`peer ${driver.name}: stopping workers: ${String(err)}`));
      await sink?.stop().catch(() => {});
      await store?.close().catch((err) => log(`peer ${driver.name}: removing its store: ${String(err)}`));
    })();
    return cleaning;
  };
  const unregister = onInterrupt(cleanUp);
  try {
    sink = await startSink();
    store = await driver.open(settings);
    processes = await startPeerWorkers({
      peer: driver.name,
      count: workers,
      address: store.address,
      settings,
      sinkUrl: sink.url,
    });
    return await fn(store, sink, processes);
  } finally {
    await cleanUp();
    unregister();
  }
}

async function enqueueAll(store: PeerStore, count: number, job: (i: number) => PeerJob): Promise<void> {
  for (let i = 0; i < count; i += CHUNK) {
    const n = Math.min(CHUNK, count - i);
    await store.enqueue(Array.from({ length: n }, (_, k) => job(i + k)));
  }
}

/** N one-off jobs all due in the same second, enqueued ahead (as Belfry's herd is loaded ahead). */
export async function runPeerHerd(
  driver: PeerDriver<Settings>,
  settings: Settings,
  o: { count: number; workers: number },
): Promise<PeerHerdResult> {
  return withPeer(driver, settings, o.workers, async (store, sink, processes) => {
    // Room to enqueue before the due time (≈ 6 s + 0.25 ms a job; checked below).
    const due = Math.ceil((Date.now() + 6_000 + o.count / 4) / 1000) * 1000;
    const runAt = new Date(due);
    const t0 = Date.now();
    await enqueueAll(store, o.count, (i) => ({ jobId: `job_herd_${i}`, runAt }));
    const enqueueMs = Date.now() - t0;
    await store.settle();
    const readyBeforeDueMs = due - Date.now();
    if (readyBeforeDueMs < 0)
      log(`peer ${driver.name}: the herd was enqueued ${-readyBeforeDueMs} ms after its due time`);
    const cpu = meters(store, processes, sink);
    await sleep(Math.max(0, due - Date.now()));
    await cpu.start();
    const deadline = due + 300_000;
    while (sink.records.length < o.count && Date.now() < deadline) await sleep(100);
    const cpuFigures = await cpu.figures(sink.records.length);
    await sleep(1_000); // late duplicates, if any, would arrive now
    const { points, lags, first, ...figures } = herdFigures(sink.records, { due, expected: o.count });
    return {
      parameters: { jobs: o.count, workers: o.workers, dueAt: runAt.toISOString() },
      server: await store.serverInfo(),
      enqueueMs,
      readyBeforeDueMs,
      cpu: cpuFigures,
      ...figures,
    };
  });
}

/**
 * `perSecond` occurrences due every second for `seconds`, as Belfry's steady (1,000 recurring
 * jobs firing each second): a producer enqueues each second's jobs `leadMs` before they are
 * due, the peer's equivalent of Belfry's scheduler materializing runs ahead.
 */
export async function runPeerSteady(
  driver: PeerDriver<Settings>,
  settings: Settings,
  o: { perSecond: number; seconds: number; workers: number; leadMs?: number },
): Promise<PeerSteadyResult> {
  const leadMs = o.leadMs ?? 2_000;
  return withPeer(driver, settings, o.workers, async (store, sink, processes) => {
    const cpu = meters(store, processes, sink);
    await cpu.start();
    const start = Math.ceil((Date.now() + 4_000) / 1000) * 1000;
    let lateEnqueues = 0;
    for (let k = 0; k < o.seconds; k++) {
      const at = start + k * 1000;
      const wait = at - leadMs - Date.now();
      if (wait > 0) await sleep(wait);
      const runAt = new Date(at);
      await enqueueAll(store, o.perSecond, (i) => ({ jobId: `job_steady_${i}`, runAt }));
      if (Date.now() > at) lateEnqueues++;
    }
    const end = start + o.seconds * 1000;
    await waitForWindow(sink.records, { start, end, expected: o.perSecond * o.seconds });
    const cpuFigures = await cpu.figures(sink.records.length);
    const { points, lags, ...figures } = steadyFigures(sink.records, {
      start,
      seconds: o.seconds,
      perSecond: o.perSecond,
    });
    return {
      parameters: { perSecond: o.perSecond, seconds: o.seconds, workers: o.workers, leadMs },
      server: await store.serverInfo(),
      lateEnqueues,
      cpu: cpuFigures,
      ...figures,
    };
  });
}
