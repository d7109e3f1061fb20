// A REST route: method, path template, required scope, the zod schemas of its query and
// body, its documented responses, and a thin handler (parsed input → one service call →
// response). The same definitions drive the router and the OpenAPI document.
import type { z } from 'zod';
import type { ZodOpenApiResponseObject } from 'zod-openapi';
import type { Actor, ServiceDeps } from '../context';
import type { ApiKeyScope } from '../security/api-key-format';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface BaseContext<Q, B> {
  request: Request;
  /** path parameters, URL-decoded; ids are checked by the services (malformed = not found) */
  params: Record<string, string>;
  query: Q;
  body: B;
}

export interface AuthedContext<Q, B> extends BaseContext<Q, B> {
  deps: ServiceDeps;
  actor: Actor;
}

/** Public routes build the dependencies only if they need them (openapi.json does not). */
export interface PublicContext<Q> extends BaseContext<Q, undefined> {
  getDeps(): Promise<ServiceDeps>;
}

/** What the handler passes to every route; `deps` and `actor` are set for authenticated ones. */
export interface InvokeContext extends BaseContext<unknown, unknown> {
  deps: ServiceDeps | null;
  actor: Actor | null;
  getDeps(): Promise<ServiceDeps>;
}

interface RouteMeta {
  method: Method;
  /** OpenAPI path template, e.g. /api/v1/jobs/{id} */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tag: string;
  /** documented success and route-specific responses; common problems are added */
  responses: Record<number, ZodOpenApiResponseObject>;
}

type Query = z.ZodObject | undefined;
type Body = z.ZodType | undefined;
type Out<S> = S extends z.ZodType ? z.output<S> : undefined;

interface RouteSpec<Q extends Query, B extends Body> extends RouteMeta {
  query?: Q;
  /** a required JSON body; without one the route accepts no body or `{}` */
  body?: B;
  /** the largest body this route reads (default MAX_BODY_BYTES) */
  maxBodyBytes?: number;
  /** how many requests the parsed body counts as against the key's rate limit (default 1) */
  cost?(body: Out<B>): number;
}

/** What the router and the document generator see, with the handler's types erased. */
export interface Route extends RouteMeta {
  scope: ApiKeyScope | null;
  query: z.ZodObject | undefined;
  body: z.ZodType | undefined;
  maxBodyBytes: number | undefined;
  cost: ((body: unknown) => number) | undefined;
  invoke(ctx: InvokeContext): Promise<Response>;
}

export function route<Q extends Query = undefined, B extends Body = undefined>(
  spec: RouteSpec<Q, B> & { scope: ApiKeyScope; handle(ctx: AuthedContext<Out<Q>, Out<B>>): Promise<Response> },
): Route {
  const { handle, ...meta } = spec;
  return {
    ...meta,
    query: spec.query,
    body: spec.body,
    maxBodyBytes: spec.maxBodyBytes,
    cost: spec.cost as ((body: unknown) => number) | undefined,
    invoke(ctx) {
      if (!ctx.actor || !ctx.deps) throw new Error(`route ${spec.operationId} reached without credentials`);
      return handle({ ...ctx, deps: ctx.deps, actor: ctx.actor } as AuthedContext<Out<Q>, Out<B>>);
    },
  };
}

/** A route anyone may call: no credentials, no rate limit. */
export function publicRoute<Q extends Query = undefined>(
  spec: RouteSpec<Q, undefined> & { handle(ctx: PublicContext<Out<Q>>): Promise<Response> },
): Route {
  const { handle, ...meta } = spec;
  return {
    ...meta,
    scope: null,
    query: spec.query,
    body: undefined,
    maxBodyBytes: undefined,
    cost: undefined,
    invoke: (ctx) => handle(ctx as PublicContext<Out<Q>>),
  };
}
