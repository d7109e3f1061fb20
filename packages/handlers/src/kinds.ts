// THE list of target kinds this build accepts: one line per kind. Its schema half (the API's
// target union, routing) is assembled from here; the engine's handler factories (registry.ts)
// must then name the same kinds (all but the pull lane's, which the engine never executes),
// which the compiler checks.
import { amqpKind } from './amqp/schema';
import { containerKind } from './container/schema';
import { httpKind } from './http/schema';
import { natsKind } from './nats/schema';
import { pullKind } from './pull/schema';

export const KINDS = [httpKind, amqpKind, natsKind, pullKind, containerKind] as const;
