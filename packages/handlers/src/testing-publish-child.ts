// Run by the TLS tests (amqp/amqps.test.ts, nats/nats-tls.test.ts) in a child process started
// with NODE_EXTRA_CA_CERTS — Node reads it only at process start, as the engine would: publishes
// each target of the JSON in argv[2] through a fresh handler of its kind, one attempt each, and
// prints the outcomes as JSON on stdout.
import { AmqpHandler, type AmqpTarget } from './amqp/amqp';
import { NatsHandler, type NatsTarget } from './nats/nats';
import { makeContext } from './testing';

interface Publish {
  target: AmqpTarget | NatsTarget;
  runId: string;
  payload: unknown;
}

const { publishes, secret } = JSON.parse(process.argv[2]!) as { publishes: Publish[]; secret: string };
const amqp = new AmqpHandler({ allowPrivateTargets: true });
const nats = new NatsHandler({ allowPrivateTargets: true });
const outcomes = [];
for (const p of publishes) {
  const ctx = makeContext({ runId: p.runId, signingSecrets: [secret] });
  outcomes.push(
    p.target.type === 'amqp'
      ? await amqp.execute(p.target, p.payload, ctx)
      : await nats.execute(p.target, p.payload, ctx),
  );
}
await Promise.all([amqp.close(), nats.close()]);
process.stdout.write(JSON.stringify(outcomes));
