// nats: the machine's NATS JetStream (127.0.0.1:4222; BENCH_NATS_URL overrides), a memory
// stream of this run's own capturing the subject, and a subscriber that records each message
// on arrival (the stream acknowledges Belfry's publishes; the subscriber sees them as stored).
import { connect, StorageType } from 'nats';
import { benchEnv } from '../lib/env';
import type { SinkRecord } from '../lib/sink';
import { type KindBench, recordOf } from './kind';

export const natsBench: KindBench = {
  kind: 'nats',
  async start({ runTag }) {
    const url = benchEnv.BENCH_NATS_URL;
    const stream = `BELFRY_BENCH_${runTag}`;
    const subject = `belfry-bench.${runTag}`;
    const nc = await connect({ servers: url });
    const jsm = await nc.jetstreamManager();
    await jsm.streams.add({ name: stream, subjects: [subject], storage: StorageType.Memory });
    const records: SinkRecord[] = [];
    nc.subscribe(subject, {
      callback: (_err, m) => {
        records.push(recordOf(Date.now(), (name) => m.headers?.get(name) || undefined));
      },
    });
    await nc.flush();
    return {
      target: { type: 'nats', url, subject, headers: {} },
      records,
      async stop() {
        await jsm.streams.delete(stream).catch(() => {});
        await nc.close().catch(() => {});
      },
    };
  },
};
