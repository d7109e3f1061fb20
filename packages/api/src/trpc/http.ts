// The dashboard's tRPC endpoint as a fetch handler, with the limits a public endpoint needs
// before any procedure runs: the body is read under a cap while it streams (a sign-up call
// needs no login, so an unbounded body would reach JSON.parse from anyone), and a batch may
// carry at most TRPC_MAX_BATCH calls. Oversized bodies answer 413 problem+json, like REST.
// Calls refused before a procedure runs get their `request` line here (request-log.ts).
import type { TRPCError } from '@trpc/server';
import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import type { Logger } from '../context';
import { AppError } from '../errors';
import { readCapped } from '../rest/request';
import { problem } from '../rest/response';
import type { DashboardContext } from './context';
import { hasCallLine, writeCallLine } from './request-log';
import { appRouter } from './router';

/** The largest dashboard request body: a job form (payload ≤ 256 KiB) plus its envelope, a few over. */
export const TRPC_MAX_BODY_BYTES = 1024 * 1024;
/** The most calls one batched request may carry; the dashboard's client splits at the same size. */
export const TRPC_MAX_BATCH = 20;

export interface TrpcHttpOptions {
  endpoint: string;
  createContext(resHeaders: Headers): Promise<DashboardContext>;
  onError?(opts: { error: TRPCError; path: string | undefined }): void;
  /** for the lines of requests refused before a context exists (a body past the cap); default: console */
  log?: Logger;
}

export async function handleTrpcRequest(req: Request, options: TrpcHttpOptions): Promise<Response> {
  const startedAt = Date.now();
  // What the client asked for, for lines about calls tRPC refused before naming one.
  const requested = requestedPaths(req.url, options.endpoint);
  let body: Uint8Array | undefined;
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    try {
      body = await readCapped(req, TRPC_MAX_BODY_BYTES);
    } catch (err) {
      if (err instanceof AppError) {
        writeCallLine(options.log ?? console, {
          path: requested,
          type: 'unknown',
          startedAt,
          status: err.status,
          ids: {},
        });
        return problem(err);
      }
      throw err;
    }
  }
  // The buffered body replaces the stream; everything else about the request is unchanged.
  const buffered = new Request(req.url, {
    method: req.method,
    headers: req.headers,
    body: body && body.byteLength > 0 ? new Uint8Array(body) : undefined,
  });
  return fetchRequestHandler({
    endpoint: options.endpoint,
    req: buffered,
    router: appRouter,
    maxBatchSize: TRPC_MAX_BATCH,
    createContext: ({ resHeaders }) => options.createContext(resHeaders),
    onError: ({ error, path, type, ctx }) => {
      if (!hasCallLine(error)) {
        writeCallLine(ctx?.deps.log ?? options.log ?? console, {
          path: path ?? requested,
          type,
          startedAt,
          error,
          ids: ctx?.userId ? { userId: ctx.userId } : {},
        });
      }
      options.onError?.({ error, path });
    },
  });
}

function requestedPaths(url: string, endpoint: string): string {
  const pathname = new URL(url).pathname;
  const rest = pathname.startsWith(`${endpoint}/`) ? pathname.slice(endpoint.length + 1) : pathname;
  try {
    return decodeURIComponent(rest);
  } catch {
    return rest;
  }
}
