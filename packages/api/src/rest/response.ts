// Response helpers: JSON bodies, 204s, and the one mapping of AppError to problem+json
// (with the headers some statuses call for).
import { type AppError, toProblem } from '../errors';

const BASE_HEADERS = { 'cache-control': 'no-store' };

export function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { ...BASE_HEADERS, 'content-type': 'application/json', ...headers },
  });
}

export function noContent(): Response {
  return new Response(null, { status: 204, headers: BASE_HEADERS });
}

export function problem(err: AppError, headers: Record<string, string> = {}): Response {
  const extra: Record<string, string> = { ...headers };
  if (err.code === 'unauthenticated') extra['www-authenticate'] = 'Bearer realm="belfry"';
  if (err.code === 'rate_limited') {
    extra['retry-after'] = String(Math.max(1, Math.ceil(err.retryAfterSeconds ?? 1)));
    extra['ratelimit-remaining'] = '0';
  }
  return new Response(JSON.stringify(toProblem(err)), {
    status: err.status,
    headers: { ...BASE_HEADERS, 'content-type': 'application/problem+json', ...extra },
  });
}
