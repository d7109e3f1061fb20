// Handler lookup by target type. Adding a handler (queue message, container task) is a
// new file implementing Handler plus one entry in defaultHandlers; the worker only ever
// asks the registry for `target.type`.
import type { Handler } from './types';
import { HttpHandler, type HttpHandlerOptions } from './http';

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

export interface DefaultHandlerOptions {
  allowPrivateTargets: boolean;
  userAgent?: string;
}

export function defaultHandlers(options: DefaultHandlerOptions): Handler[] {
  const http: HttpHandlerOptions = { allowPrivateTargets: options.allowPrivateTargets };
  if (options.userAgent !== undefined) http.userAgent = options.userAgent;
  return [new HttpHandler(http)];
}
