// `npm run bench [-- --quick] [-- --only=herd,steady,container,peers,...]`: Belfry's benchmark suite. Prints a
// table, writes bench/results/latest.json and one SVG chart per latency scenario. Options for
// development runs: --herd=N, --herd-jitter=S, --herd-lead=S, --herd-concurrency=N (the herd's slots a node), --steady-rate=N, --steady-seconds=N, --create=N, --containers=N; for the peers (bench/peers):
// --only=peers or --only=peer-pgboss,peer-graphile,peer-bullmq, --peer-workloads=herd,steady,
// --peer-settings='{"bullmq":{"concurrency":100}}' (README.md in bench/results); for the knee: --knee-seconds=N,
// --knee-step=N, --knee-steps=N, --knee-resolution=N; for the handlers
// scenario (target kinds side by side): --handlers=N runs per kind, --handler-kinds=http,amqp,nats,pull.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { findRepoRoot } from '@belfry/db';
import { parseArgs } from './lib/args';
import { runInterruptCleanUps } from './lib/cleanup';
import { benchEnv } from './lib/env';
import { benchDatabase, releaseServer, serverVersion } from './lib/harness';
import { runBelfryScenarios } from './lib/scenarios';
import { printTable, summaryRows } from './lib/table';
import { PEER_NAMES } from './peers/index';
import { comparePeers, runPeers, type PeerResult } from './peers/report';

const args = (() => {
  try {
    return parseArgs(process.argv.slice(2));
  } catch (err) {
    process.stderr.write(`bench: ${(err as Error).message}\n`);
    process.exit(2);
  }
})();
const { quick, wantPeer, P, peerWorkloads, peerSettings } = args;

const root = findRepoRoot();
const outDir = join(root, 'bench/results');
mkdirSync(outDir, { recursive: true });
const log = (m: string) => process.stderr.write(`[bench] ${m}\n`);

/** What Belfry's scenarios measured so far: written to partial.json when a later one fails. */
const measured: Record<string, unknown> = {};

async function main() {
  const started = new Date();
  const belfry = await runBelfryScenarios(args, outDir, log, measured);
  const { herd, steady, results } = belfry;

  let peers: PeerResult[] = [];
  const peerNames = PEER_NAMES.filter(wantPeer);
  if (peerNames.length) {
    // After Belfry's own scenarios: the same workloads on the same machine, sink and server.
    peers = await runPeers(peerNames, {
      herd: P.herd,
      steadyRate: P.steadyRate,
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
    database: benchEnv.DATABASE_URL ? 'external (DATABASE_URL)' : 'embedded',
    results,
  };
  writeFileSync(join(outDir, 'latest.json'), `${JSON.stringify(doc, null, 2)}\n`);

  const rows = summaryRows({ ...belfry, peers, comparisons });
  printTable(
    `Belfry bench (${quick ? 'quick' : 'full'}), ${doc.machine.cores} cores, PostgreSQL ${postgresVersion}, commit ${commit}`,
    rows,
  );
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
    if (Object.keys(measured).length) {
      const partial = { failedAt: new Date().toISOString(), error: String(err), quick, results: measured };
      writeFileSync(join(outDir, 'partial.json'), `${JSON.stringify(partial, null, 2)}\n`);
      process.stderr.write('the scenarios that finished are in bench/results/partial.json\n');
    }
    await runInterruptCleanUps();
    await releaseServer().catch(() => {});
    process.exit(1);
  },
);
