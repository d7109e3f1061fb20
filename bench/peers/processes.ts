// A peer's worker processes (bench/peers/worker-process.ts), as many as Belfry's engine nodes.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { findRepoRoot } from '@belfry/db';
import { cpuProfArgs } from '../lib/env';
import { nodeBin } from '../lib/harness';
import type { PeerName, Settings, StoreAddress } from './types';

export interface PeerProcesses {
  pids(): (number | undefined)[];
  stop(): Promise<void>;
}

function stopChild(c: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (c.exitCode !== null || c.signalCode !== null) return resolve();
    c.once('exit', () => resolve());
    c.kill('SIGTERM');
    setTimeout(() => c.kill('SIGKILL'), 20_000).unref();
  });
}

export async function startPeerWorkers(o: {
  peer: PeerName;
  count: number;
  address: StoreAddress;
  settings: Settings;
  sinkUrl: string;
}): Promise<PeerProcesses> {
  const root = findRepoRoot();
  const children: ChildProcess[] = [];
  const ready: Promise<void>[] = [];
  for (let i = 1; i <= o.count; i++) {
    const config = { peer: o.peer, index: i, address: o.address, settings: o.settings, sinkUrl: o.sinkUrl };
    // BENCH_CPU_PROF=<dir> writes a V8 CPU profile of each worker process there on exit (as for the engines).
    const prof = cpuProfArgs();
    const script = join(root, 'bench/peers/worker-process.ts');
    const child = spawn(nodeBin, [...prof, '--import', 'tsx', script, JSON.stringify(config)], {
      cwd: root,
      // stdin is a pipe the worker watches: it closes when this process dies, however it dies.
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    children.push(child);
    ready.push(
      new Promise((resolve, reject) => {
        createInterface({ input: child.stdout! }).on('line', (line) => {
          if (line.startsWith('{"ready":true')) resolve();
        });
        child.once('exit', (code, signal) =>
          reject(new Error(`peer ${o.peer} worker ${i} exited with ${code ?? signal} before it was ready`)),
        );
      }),
    );
  }
  const stop = async () => {
    await Promise.all(children.map(stopChild));
  };
  try {
    await Promise.all(ready);
  } catch (err) {
    await stop();
    throw err;
  }
  return { stop, pids: () => children.map((c) => c.pid) };
}
