// What a failed call throws. Every failure is one of three: the server answered with an
// error status (ApiError, carrying its problem+json), the server never answered
// (NetworkError), or it answered something that is not the Belfry API (UnexpectedResponseError).
import type { Problem } from './types';

/** The common base, so callers can catch everything this package throws at once. */
export class BelfryError extends Error {
  override readonly name: string = 'BelfryError';
}

/** The API answered 4xx/5xx; `problem` is its RFC 9457 body (or a stand-in when it sent none). */
export class ApiError extends BelfryError {
  override readonly name = 'ApiError';
  constructor(
    readonly status: number,
    readonly problem: Problem,
    /** the Retry-After of a 429 or 503, in seconds; null when absent */
    readonly retryAfterSeconds: number | null = null,
  ) {
    super(problem.detail || problem.title || `HTTP ${status}`);
  }
}

/** The request never got an HTTP answer: refused, DNS, timeout, TLS. */
export class NetworkError extends BelfryError {
  override readonly name = 'NetworkError';
}

/** A 2xx that is not JSON, or JSON that does not parse: the URL is probably not a Belfry server. */
export class UnexpectedResponseError extends BelfryError {
  override readonly name = 'UnexpectedResponseError';
}

/** Retry-After as delay-seconds (the only form the API sends); null when absent or unparseable. */
export function retryAfterSeconds(value: string | null): number | null {
  if (value === null || !/^\s*\d+\s*$/.test(value)) return null;
  return Number(value);
}

const NETWORK_CODES: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset by the server',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host name lookup failed (temporary DNS failure)',
  ETIMEDOUT: 'connection timed out',
  UND_ERR_CONNECT_TIMEOUT: 'connection timed out',
  UND_ERR_SOCKET: 'the connection closed unexpectedly',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  EPIPE: 'the connection closed unexpectedly',
};

/** fetch wraps the interesting part in `cause` (an AggregateError when several addresses were tried). */
export function describeNetworkError(err: unknown, timeoutMs: number): string {
  if (err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError')) {
    return `no answer within ${Math.round(timeoutMs / 1000)} s`;
  }
  const cause = (err as { cause?: unknown } | null)?.cause ?? err;
  const c = cause as { code?: string; errors?: { code?: string }[]; message?: string } | null;
  const code = c?.code ?? c?.errors?.find((e) => e.code)?.code;
  if (code && NETWORK_CODES[code]) return NETWORK_CODES[code];
  if (code && /CERT|TLS|SSL/.test(code)) return `TLS failure (${code})`;
  return c?.message || (err instanceof Error ? err.message : String(err));
}

/** The problem+json body of an error answer, or a stand-in that says what came back. */
export function toProblem(response: Response, body: unknown, baseUrl: string): Problem {
  if (body && typeof body === 'object' && ('detail' in body || 'title' in body)) {
    const b = body as Partial<Problem>;
    const problem = { ...b, detail: String(b.detail ?? b.title ?? `HTTP ${response.status}`) } as Problem;
    if (!Array.isArray(problem.errors)) delete problem.errors;
    return problem;
  }
  const reason = response.statusText ? ` ${response.statusText}` : '';
  const hint = response.status === 404 ? ` (is ${baseUrl} a Belfry server?)` : '';
  return { status: response.status, detail: `HTTP ${response.status}${reason}${hint}` } as Problem;
}
