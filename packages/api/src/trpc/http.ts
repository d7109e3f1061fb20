// The dashboard's tRPC endpoint as a fetch handler, with the limits a public endpoint needs
// before any procedure runs: the body is read under a cap while it streams (a sign-up call
// needs no login, so an unbounded body would reach JSON.parse from anyone), and a batch may
// carry at most TRPC_MAX_BATCH calls. Oversized bodies answer 413 problem+json, like REST.
import type { TRPCError } from '@trpc/server';
import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import { AppError } from '../errors';
import { readCapped } from '../rest/request';
import { problem } from '../rest/response';
import type { DashboardContext } from './context';
import { appRouter } from './router';

/** The largest dashboard request body: a job form (payload ≤ 256 KiB) plus its envelope, a few over. */
export const TRPC_MAX_BODY_BYTES = 1024 * 1024;
/** The most calls one batched request may carry; the dashboard's client splits at the same size. */
export const TRPC_MAX_BATCH = 20;

export interface TrpcHttpOptions {
  endpoint: string;
  createContext(resHeaders: Headers): Promise<DashboardContext>;
  onError?(opts: { error: TRPCError; path: string | undefined }): void;
}

export async function handleTrpcRequest(req: Request, options: TrpcHttpOptions): Promise<Response> {
  let body: Uint8Array | undefined;
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    try {
      body = await readCapped(req, TRPC_MAX_BODY_BYTES);
    } catch (err) {
      if (err instanceof AppError) return problem(err);
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
    onError: options.onError ? ({ error, path }) => options.onError?.({ error, path }) : undefined,
  });
}
