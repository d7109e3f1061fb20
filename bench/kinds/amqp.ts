// amqp: the machine's RabbitMQ (127.0.0.1:5672, guest/guest; BENCH_AMQP_URL overrides), an
// exchange and queue of this run's own, and a consumer that records each message on arrival.
import { connect } from 'amqplib';
import { benchEnv } from '../lib/env';
import type { SinkRecord } from '../lib/sink';
import { type KindBench, recordOf } from './kind';

export const amqpBench: KindBench = {
  kind: 'amqp',
  async start({ runTag }) {
    const url = benchEnv.BENCH_AMQP_URL;
    const exchange = `belfry-bench-${runTag}`;
    const queue = `belfry-bench-${runTag}`;
    const connection = await connect(url);
    const channel = await connection.createChannel();
    await channel.assertExchange(exchange, 'direct', { durable: false });
    await channel.assertQueue(queue, { durable: false, exclusive: true });
    await channel.bindQueue(queue, exchange, 'bench');
    await channel.prefetch(1_000);
    const records: SinkRecord[] = [];
    await channel.consume(
      queue,
      (m) => {
        if (!m) return;
        const h = m.properties.headers ?? {};
        records.push(recordOf(Date.now(), (name) => (h[name] === undefined ? undefined : String(h[name]))));
      },
      { noAck: true },
    );
    return {
      target: { type: 'amqp', url, exchange, routingKey: 'bench', persistent: false, headers: {} },
      records,
      async stop() {
        await channel.deleteExchange(exchange).catch(() => {});
        await connection.close().catch(() => {});
      },
    };
  },
};
