// One `request` line per dashboard (tRPC) call, the same shape as the REST API's line
// (rest/handler.ts): what was called, its HTTP status, how long it took and the ids it was
// about — never its input or its output, which may carry passwords, keys and target secrets.
// Calls that reach a procedure are logged by the first middleware of every procedure (init.ts),
// which alone knows the tenant the call acted in; calls refused before any procedure runs (no
// such procedure, a batch too large, a context that could not be built, a body past the cap)
// are logged by the HTTP handler (http.ts), which sees them only as errors.
import type { TRPCError } from '@trpc/server';
import { getHTTPStatusCodeFromError } from '@trpc/server/http';
import { withIds } from '@belfry/log';
import type { Logger } from '../context';

/** The ids a call's line carries, filled in as the procedure's middlewares learn them. */
export interface CallIds {
  userId?: string;
  tenantId?: string;
}

export interface CallLine {
  /** the procedure path, e.g. `jobs.list`, as the client asked for it */
  path: string;
  type: 'query' | 'mutation' | 'subscription' | 'unknown';
  startedAt: number;
  error?: TRPCError | undefined;
  /** for a request refused before tRPC parsed it (413): its HTTP status */
  status?: number;
  ids: CallIds;
}

// Errors already written by the middleware, so the HTTP handler's onError does not write them again.
const logged = new WeakSet<TRPCError>();

export function writeCallLine(log: Logger, line: CallLine): void {
  if (line.error) logged.add(line.error);
  const status = line.status ?? (line.error ? getHTTPStatusCodeFromError(line.error) : 200);
  withIds(log, line.ids).info(
    {
      path: line.path,
      type: line.type,
      status,
      ...(line.error ? { code: line.error.code } : {}),
      durationMs: Date.now() - line.startedAt,
    },
    'request',
  );
}

/** Whether a call's error has its line already (it reached a procedure). */
export function hasCallLine(error: TRPCError): boolean {
  return logged.has(error);
}
