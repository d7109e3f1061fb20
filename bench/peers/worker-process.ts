// Child process: one peer worker. argv[2] is its JSON config; prints {"ready":true} once it is
// taking jobs; stops gracefully on SIGTERM, and exits when the bench process goes away (its
// stdin, a pipe from the bench, closes), so a killed bench leaves no worker behind.
import { sinkDeliverer } from './deliver';
import { loadPeer } from './index';
import type { PeerName, Settings, StoreAddress } from './types';

interface Config {
  peer: PeerName;
  index: number;
  address: StoreAddress;
  settings: Settings;
  sinkUrl: string;
}

const config = JSON.parse(process.argv[2] ?? '{}') as Config;
const label = `[peer-${config.peer}-${config.index}]`;
const driver = await loadPeer(config.peer);
const sink = sinkDeliverer(config.sinkUrl, Number(config.settings.sinkConnections ?? 64));
const worker = await driver.work(config.address, config.settings, sink.deliver);
process.stdout.write(`${JSON.stringify({ ready: true })}\n`);

let stopping = false;
async function stop(): Promise<void> {
  if (stopping) return;
  stopping = true;
  const deadline = new Promise((r) => setTimeout(r, 15_000).unref());
  await Promise.race([worker.stop(), deadline]).catch((err) => process.stderr.write(`${label} stop: ${String(err)}\n`));
  await sink.close().catch(() => {});
  process.exit(0);
}
process.on('SIGTERM', () => void stop());
process.stdin.on('end', () => void stop());
process.stdin.resume();
process.on('unhandledRejection', (err) => process.stderr.write(`${label} unhandled: ${String(err)}\n`));
