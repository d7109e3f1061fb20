// The REST API as a Fetch handler, `(Request) => Promise<Response>`, independent of any
// framework (Next mounts it under /api/v1/[...path]). Per request: match the route (404,
// 405), authenticate and rate-limit the key (401, 429), check its scope (403), parse query
// and body (400, 413, 415), call the route's handler, and map any AppError to problem+json
// once, here.
import { withIds } from '@belfry/log';
import type { Actor, Logger, ServiceDeps } from '../context';
import { AppError, isExpectedError } from '../errors';
import { parseInput } from '../schemas/validate';
import { EmptyBody } from '../schemas/common';
import { hasScope } from '../security/scopes';
import { type Authenticated, authenticateApiKey } from '../services/api-keys';
import { type RateLimitDecision, takeToken } from '../services/rate-limit';
import { bearerToken, queryObject, readJsonBody } from './request';
import { problem } from './response';
import type { Method, Route } from './route';
import { ROUTES } from './routes/index';

interface CompiledRoute {
  route: Route;
  pattern: RegExp;
  names: string[];
}

function compile(route: Route): CompiledRoute {
  const names: string[] = [];
  const source = route.path.replace(/[.]/g, '\\.').replace(/\{(\w+)\}/g, (_, name: string) => {
    names.push(name);
    return '([^/]+)';
  });
  return { route, pattern: new RegExp(`^${source}$`), names };
}

type Match =
  | { kind: 'route'; route: Route; params: Record<string, string> }
  | { kind: 'method_not_allowed'; allow: string[] }
  | { kind: 'not_found' };

export function matchRoute(routes: CompiledRoute[], method: string, pathname: string): Match {
  const allow: string[] = [];
  for (const c of routes) {
    const m = c.pattern.exec(pathname);
    if (!m) continue;
    if (c.route.method !== method) {
      allow.push(c.route.method);
      continue;
    }
    const params: Record<string, string> = {};
    for (let i = 0; i < c.names.length; i++) {
      try {
        params[c.names[i] as string] = decodeURIComponent(m[i + 1] as string);
      } catch {
        return { kind: 'not_found' };
      }
    }
    return { kind: 'route', route: c.route, params };
  }
  return allow.length ? { kind: 'method_not_allowed', allow } : { kind: 'not_found' };
}

// Errors from a database that is down or restarting: the request may succeed later.
function isUnavailable(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return (
    typeof code === 'string' &&
    (['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENOTFOUND', '57P01', '57P02', '57P03'].includes(code) ||
      code.startsWith('08'))
  );
}

function rateLimitHeaders(rate: RateLimitDecision | undefined): Record<string, string> {
  return rate ? { 'ratelimit-limit': String(rate.limit), 'ratelimit-remaining': String(rate.remaining) } : {};
}

export interface RestHandlerOptions {
  /** for failures before the dependencies exist; default: console */
  log?: Logger;
}

export function createRestHandler(
  getDeps: () => Promise<ServiceDeps>,
  options: RestHandlerOptions = {},
): (request: Request) => Promise<Response> {
  const routes = ROUTES.map(compile);
  const fallbackLog: Logger = options.log ?? console;

  // One line per request, with the ids it was about, so a tenant's, a job's or a run's requests
  // can be found in the log. Health checks that pass are not worth a line each.
  return async (request) => {
    const started = Date.now();
    const seen: Seen = { log: fallbackLog, ids: {} };
    const response = await serve(request, seen);
    const path = new URL(request.url).pathname;
    if (!(path === '/api/v1/healthz' && response.status === 200)) {
      withIds(seen.log, seen.ids).info(
        { method: request.method, path, status: response.status, durationMs: Date.now() - started },
        'request',
      );
    }
    return response;
  };

  async function serve(request: Request, seen: Seen): Promise<Response> {
    const url = new URL(request.url);
    let rate: RateLimitDecision | undefined;
    try {
      const match = matchRoute(routes, request.method.toUpperCase() as Method, url.pathname);
      if (match.kind === 'not_found') throw new AppError('not_found', `no such endpoint: ${url.pathname}`);
      if (match.kind === 'method_not_allowed') {
        const allow = match.allow.join(', ');
        return problem(new AppError('method_not_allowed', `${request.method} is not allowed here; use ${allow}`), {
          allow,
        });
      }
      const { route, params } = match;
      if (params.id && route.path.startsWith('/api/v1/jobs/{id}')) seen.ids.jobId = params.id;
      if (params.runId) seen.ids.runId = params.runId;
      const loadDeps = async () => {
        try {
          const deps = await getDeps();
          seen.log = deps.log;
          return deps;
        } catch (err) {
          // The cause (host names, users, driver messages) is for the log, not for callers.
          seen.log.error({ err, method: request.method, path: url.pathname }, 'service dependencies unavailable');
          throw new AppError('unavailable', 'the service is starting or its database is unreachable; retry shortly');
        }
      };

      let deps: ServiceDeps | null = null;
      let actor: Actor | null = null;
      let bucket: Authenticated['bucket'] | undefined;
      if (route.scope) {
        deps = await loadDeps();
        const token = bearerToken(request);
        if (token === null)
          throw new AppError('unauthenticated', 'an API key is required (Authorization: Bearer bfy_...)');
        const authenticated = await authenticateApiKey(deps, token);
        actor = authenticated.actor;
        seen.ids.tenantId = actor.tenantId;
        rate = authenticated.rateLimit;
        bucket = authenticated.bucket;
        if (!hasScope(actor, route.scope))
          throw new AppError('forbidden', `this API key lacks the '${route.scope}' scope`);
      }

      const query = parseInput(route.query ?? EmptyBody, queryObject(url));
      // GET and DELETE bodies have no meaning here and are not read.
      const raw =
        route.method === 'GET' || route.method === 'DELETE'
          ? undefined
          : await readJsonBody(request, route.maxBodyBytes);
      let body: unknown;
      if (route.body) {
        if (raw === undefined) throw AppError.invalid([{ path: '', message: 'a JSON request body is required' }]);
        body = parseInput(route.body, raw);
      } else if (raw !== undefined) {
        parseInput(EmptyBody, raw);
      }

      // A request that counts as several (a batch) takes the rest of its tokens now, all or none;
      // never more than the bucket holds, so a large batch is slow, not impossible.
      const cost = route.cost && deps && bucket ? Math.min(route.cost(body), bucket.limits.burst) : 1;
      if (cost > 1 && deps && bucket) {
        const extra = await takeToken(deps.pool, bucket.key, bucket.limits, cost - 1);
        if (!extra.allowed) {
          throw new AppError(
            'rate_limited',
            `this request counts as ${cost} requests against the rate limit of ${bucket.limits.perSecond} per second`,
            { retryAfterSeconds: extra.retryAfterSeconds },
          );
        }
        rate = extra;
      }

      const response = await route.invoke({ deps, actor, getDeps: loadDeps, request, params, query, body });
      for (const [name, value] of Object.entries(rateLimitHeaders(rate))) response.headers.set(name, value);
      return response;
    } catch (err) {
      return failure(err, request, url, withIds(seen.log, seen.ids), rate);
    }
  }
}

/** What a request's log line says besides method, path and status. */
interface Seen {
  log: Logger;
  ids: { tenantId?: string; jobId?: string; runId?: string };
}

function failure(
  err: unknown,
  request: Request,
  url: URL,
  /** the request's logger, carrying the ids it was about (withIds) */
  log: Logger,
  rate: RateLimitDecision | undefined,
): Response {
  if (isExpectedError(err)) {
    log.warn(
      { status: err.status, code: err.code, method: request.method, path: url.pathname, detail: err.message },
      'request refused',
    );
    return problem(err, rateLimitHeaders(rate));
  }
  if (err instanceof AppError) {
    log.error({ err, method: request.method, path: url.pathname }, 'request failed');
    return problem(err);
  }
  if (isUnavailable(err)) {
    log.error({ err, method: request.method, path: url.pathname }, 'database unavailable');
    return problem(new AppError('unavailable', 'the database is unreachable; retry shortly'));
  }
  log.error({ err, method: request.method, path: url.pathname }, 'request failed');
  return problem(new AppError('internal', 'an unexpected error occurred'));
}
