// The runtime half of the registry: a handler factory per registered kind, and lookup by
// target type. Adding a kind is a folder plus one line in kinds.ts and one factory here (the
// type below refuses a build where they disagree); the worker only ever asks the registry for
// `target.type`.
import { type Lane, WORKER_LANES } from '@belfry/core';
import { AmqpHandler } from './amqp/amqp';
import { ContainerHandler, type ContainerHandlerOptions } from './container/container';
import { connectDocker } from './container/docker';
import { ImageAllowList } from './container/images';
import { HttpHandler, type HttpHandlerOptions } from './http/http';
import { NatsHandler } from './nats/nats';
import { KINDS } from './kinds';
import type { ImplementedKind, PullKind } from './schemas';
import type { Handler } from './types';

/** What handlers may need from the engine's configuration. */
export interface HandlerOptions {
  /** development only: deliver to loopback/private/link-local targets */
  allowPrivateTargets: boolean;
  userAgent?: string;
  /** the Docker Engine and image allow-list of container targets; default the local socket, no image allowed */
  container?: ContainerHandlerOptions;
}

// Pull kinds have no handler: the tenant's own workers run them.
const FACTORIES: { [K in Exclude<ImplementedKind, PullKind>]: (options: HandlerOptions) => Handler } = {
  http: (options) => {
    const http: HttpHandlerOptions = { allowPrivateTargets: options.allowPrivateTargets };
    if (options.userAgent !== undefined) http.userAgent = options.userAgent;
    return new HttpHandler(http);
  },
  amqp: (options) => new AmqpHandler({ allowPrivateTargets: options.allowPrivateTargets }),
  nats: (options) => new NatsHandler({ allowPrivateTargets: options.allowPrivateTargets }),
  container: (options) =>
    new ContainerHandler(options.container ?? { docker: connectDocker(), images: ImageAllowList.parse(undefined) }),
};

export interface HandlerRegistry {
  get(type: string): Handler | undefined;
  /** closes every handler (pooled sockets etc.); all are attempted even if one fails */
  close(): Promise<void>;
}

export function createHandlerRegistry(handlers: Handler[]): HandlerRegistry {
  const byType = new Map<string, Handler>();
  for (const handler of handlers) {
    // Two handlers for one type would make dispatch depend on list order.
    if (byType.has(handler.type)) throw new Error(`duplicate handler for target type "${handler.type}"`);
    byType.set(handler.type, handler);
  }
  return {
    get: (type) => byType.get(type),
    async close() {
      const results = await Promise.allSettled([...byType.values()].map((h) => h.close?.()));
      const errors = results.flatMap((r) => (r.status === 'rejected' ? [r.reason] : []));
      if (errors.length > 0) throw new AggregateError(errors, 'closing handlers failed');
    },
  };
}

export interface DefaultHandlerOptions extends HandlerOptions {
  /** only the kinds of these lanes (a node serves the lanes it can execute); default all but pull */
  lanes?: readonly Lane[];
}

/** A handler for every registered kind in the served lanes (pull runs are never executed here). */
export function defaultHandlers(options: DefaultHandlerOptions): Handler[] {
  const lanes = options.lanes ?? WORKER_LANES;
  return KINDS.flatMap((k) =>
    k.type !== 'pull' && k.lane !== 'pull' && lanes.includes(k.lane) ? [FACTORIES[k.type](options)] : [],
  );
}
