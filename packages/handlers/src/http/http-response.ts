// Turning what came back (or what went wrong) into a HandlerOutcome's fields: a UTF-8-safe
// snippet of the response body's first bytes (read, bounded, by exchange.ts), and the mapping
// from Node/undici errors to a FailureKind plus a message a customer can act on.
import type { FailureKind } from '@belfry/core';

/** Our own abort reasons, so an abort can be told apart from every other error. */
export class DeliveryTimeoutError extends Error {
  constructor(readonly timeoutMs: number) {
    super(`timed out after ${formatSeconds(timeoutMs)}`);
    this.name = 'DeliveryTimeoutError';
  }
}

export class DeliveryCancelledError extends Error {
  constructor(reason: unknown) {
    const why = reason instanceof Error ? reason.message : reason === undefined ? '' : String(reason);
    super(why && why !== 'This operation was aborted' ? `cancelled: ${why}` : 'cancelled');
    this.name = 'DeliveryCancelledError';
  }
}

export function formatSeconds(ms: number): string {
  const s = ms / 1000;
  return `${Number.isInteger(s) ? s : s.toFixed(1)}s`;
}

const isContinuationByte = (b: number | undefined) => b !== undefined && (b & 0xc0) === 0x80;

/**
 * At most `maxBytes` bytes of `bytes` as text, cut before a character that would
 * straddle the limit. A UTF-8 character is at most 4 bytes, so the cut moves back at
 * most 3; `bytes` must hold at least one byte past the limit (Exchange ensures it) to
 * know whether the limit falls inside a character.
 */
export function utf8Snippet(bytes: Buffer, maxBytes: number): string | null {
  if (bytes.length === 0) return null;
  if (bytes.length <= maxBytes) return bytes.toString('utf8');
  let cut = maxBytes;
  while (cut > maxBytes - 3 && cut > 0 && isContinuationByte(bytes[cut])) cut--;
  return bytes.subarray(0, cut).toString('utf8');
}

interface ErrorLike {
  code?: unknown;
  message?: unknown;
  cause?: unknown;
  errors?: unknown;
  address?: unknown;
  port?: unknown;
  hostname?: unknown;
}

/** The error and everything it wraps (cause chains, AggregateError from Happy Eyeballs). */
function* errorChain(err: unknown, depth = 0): Generator<ErrorLike> {
  if (err === null || typeof err !== 'object' || depth > 5) return;
  const e = err as ErrorLike;
  yield e;
  if (e.cause !== undefined) yield* errorChain(e.cause, depth + 1);
  if (Array.isArray(e.errors)) for (const inner of e.errors) yield* errorChain(inner, depth + 1);
}

function firstCode(err: unknown): string | undefined {
  for (const e of errorChain(err)) if (typeof e.code === 'string') return e.code;
  return undefined;
}

const TIMEOUT_CODES = new Set([
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_CONNECT_TIMEOUT',
  'ETIMEDOUT',
]);
// undici's argument errors come from request construction (an invalid header name or a
// CR/LF in a header value): asking again sends the same bad request.
const INVALID_CODES = new Set(['UND_ERR_INVALID_ARG', 'UND_ERR_NOT_SUPPORTED', 'ERR_INVALID_URL']);

/** " (address:port)" when the error names an endpoint the host doesn't already show. */
function endpoint(e: ErrorLike, host: string): string {
  if (typeof e.address !== 'string') return '';
  const addr = e.address.includes(':') ? `[${e.address}]` : e.address;
  const text = typeof e.port === 'number' ? `${addr}:${e.port}` : addr;
  return text === host ? '' : ` (${text})`;
}

function connectionMessage(code: string | undefined, err: unknown, host: string): string {
  const e = [...errorChain(err)].find((x) => x.code === code) ?? (err as ErrorLike) ?? {};
  const detail = typeof e.message === 'string' ? e.message : String(err);
  switch (code) {
    case 'ECONNREFUSED':
      return `connection refused by ${host}${endpoint(e, host)}`;
    case 'ECONNRESET':
      return `connection reset by ${host}`;
    case 'ENOTFOUND':
      return `could not resolve host ${host} (ENOTFOUND)`;
    case 'EAI_AGAIN':
      return `DNS lookup for ${host} failed temporarily (EAI_AGAIN)`;
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return `${host} is unreachable (${code})`;
    case 'UND_ERR_SOCKET':
      return `connection to ${host} failed: ${detail}`;
    default:
      return code ? `request to ${host} failed: ${code}: ${detail}` : `request to ${host} failed: ${detail}`;
  }
}

/**
 * Maps a thrown error to a FailureKind and message. Guard refusals and invalid input are
 * verdicts (not retried); timeouts and anything on the network path are transient.
 */
export function describeFailure(err: unknown, host: string): { failure: FailureKind; error: string } {
  for (const e of errorChain(err)) {
    const kind = (e as { kind?: unknown }).kind;
    if ((kind === 'refused' || kind === 'invalid') && typeof e.message === 'string') {
      return { failure: kind, error: e.message };
    }
    if (e instanceof DeliveryTimeoutError) return { failure: 'timeout', error: e.message };
    // A cancel (run cancelled, lease lost, node shutting down) says nothing about the
    // target; 'connection' keeps it retryable, which is right for a shutdown, and the
    // caller that cancelled knows its own reason and overrides the outcome if it must.
    if (e instanceof DeliveryCancelledError) return { failure: 'connection', error: e.message };
  }
  const code = firstCode(err);
  if (code !== undefined && TIMEOUT_CODES.has(code)) {
    const phase =
      code === 'UND_ERR_CONNECT_TIMEOUT'
        ? 'connecting'
        : code === 'UND_ERR_BODY_TIMEOUT'
          ? 'reading the body'
          : 'waiting';
    return { failure: 'timeout', error: `timed out ${phase} (${code})` };
  }
  if (code !== undefined && INVALID_CODES.has(code)) {
    const message = (err as ErrorLike)?.message;
    return { failure: 'invalid', error: `invalid request: ${typeof message === 'string' ? message : code}` };
  }
  return { failure: 'connection', error: connectionMessage(code, err, host) };
}
