// The target kinds the `handlers` scenario drives, one receiver per kind: each starts what
// receives that kind's runs (an HTTP sink, a RabbitMQ consumer, a NATS subscriber, pull-queue workers claiming over REST) and
// records every arrival as the webhook sink does, so every kind is measured by the same code
// (lib/figures). Adding a kind to the scenario is a file here and one line in KIND_BENCHES;
// `--handler-kinds=` picks among them.
import { amqpBench } from './amqp';
import { httpBench } from './http';
import type { KindBench } from './kind';
import { natsBench } from './nats';
import { pullBench } from './pull';

export type { KindBench, KindBenchContext, KindReceiver } from './kind';

export const KIND_BENCHES: KindBench[] = [httpBench, amqpBench, natsBench, pullBench];
