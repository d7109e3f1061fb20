// Run by amqps.test.ts in a child process started with NODE_EXTRA_CA_CERTS (Node reads it only
// at process start, as the engine would): publishes each target of the JSON in argv[2] through
// a fresh AmqpHandler, one attempt each, and prints the outcomes as JSON on stdout.
import { makeContext } from '../testing';
import { AmqpHandler, type AmqpTarget } from './amqp';

interface Publish {
  target: AmqpTarget;
  runId: string;
  payload: unknown;
}

const { publishes, secret } = JSON.parse(process.argv[2]!) as { publishes: Publish[]; secret: string };
const handler = new AmqpHandler({ allowPrivateTargets: true });
const outcomes = [];
for (const p of publishes) {
  outcomes.push(await handler.execute(p.target, p.payload, makeContext({ runId: p.runId, signingSecrets: [secret] })));
}
await handler.close();
process.stdout.write(JSON.stringify(outcomes));
