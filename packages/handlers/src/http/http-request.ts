// What a webhook request looks like on the wire (docs/webhooks.md): the body bytes, the
// job's headers merged under Belfry's own, the Standard Webhooks signature over exactly
// the bytes sent, and the redacted copy of the headers that is stored with the run; a
// PreparedRequest holds all of it for one attempt, built ahead of its start.
// Pure: the HTTP handler does the sending.
import { SECRET_MASK } from '../kind';
import type { HandlerContext } from '../types';
import type { CheckedUrl } from './checked-urls';
import { webhookHeaders } from '../webhook-headers';
import type { HttpMethod } from './schema';

export { HTTP_METHODS, type HttpMethod } from './schema';

export const DEFAULT_USER_AGENT = 'Belfry-Webhooks/1.0';

/** A payload that cannot be encoded; the delivery fails as 'invalid' (not retryable). */
export class InvalidPayloadError extends Error {
  readonly kind = 'invalid' as const;
  constructor(message: string) {
    super(message);
    this.name = 'InvalidPayloadError';
  }
}

/**
 * The request body as a string: JSON of the payload, or empty when there is no payload
 * (undefined) or the method carries no body (GET/HEAD). `null` is a payload and is sent
 * as "null". The signature is computed over this exact string, sent UTF-8 encoded.
 */
export function encodeBody(method: HttpMethod, payload: unknown): string {
  if (method === 'GET' || method === 'HEAD' || payload === undefined) return '';
  let json: string | undefined;
  try {
    json = JSON.stringify(payload);
  } catch (err) {
    throw new InvalidPayloadError(`payload is not JSON-serialisable: ${(err as Error).message}`);
  }
  // JSON.stringify returns undefined for a bare function or symbol: nothing to send.
  return json ?? '';
}

// Framing and hop-by-hop headers belong to the transport: a job-supplied content-length
// or transfer-encoding would desynchronise the body (undici rejects several outright),
// and `host` would make the URL lie about where the request goes.
const TRANSPORT_HEADERS = new Set([
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'proxy-connection',
  'upgrade',
  'expect',
  'te',
  'trailer',
]);

export interface BuiltHeaders {
  headers: Record<string, string>;
  /** set when signing failed (bad secret or run id); the request must not be sent */
  signingError?: string;
}

/**
 * Job headers first, lower-cased, then Belfry's headers, which always win: a job cannot
 * spoof `webhook-id`, the signature or the idempotency key its receiver relies on.
 */
export function buildHeaders(
  jobHeaders: Record<string, string> | undefined,
  body: string,
  hasBody: boolean,
  timestampSeconds: number,
  ctx: HandlerContext,
  userAgent: string,
): BuiltHeaders {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(jobHeaders ?? {})) {
    const key = name.toLowerCase();
    if (!TRANSPORT_HEADERS.has(key)) headers[key] = String(value);
  }
  if (hasBody) headers['content-type'] = 'application/json';
  else delete headers['content-type']; // nothing is sent, so nothing to describe
  headers['user-agent'] = userAgent;
  const signed = webhookHeaders(ctx, timestampSeconds, body);
  Object.assign(headers, signed.headers);
  if (signed.signingError) return { headers, signingError: signed.signingError };
  return { headers };
}

// as write-only target fields read back (docs/api.md, "Write-only secrets in targets")
const REDACTED = SECRET_MASK;
const ALWAYS_REDACTED = new Set(['webhook-signature', 'authorization', 'proxy-authorization', 'cookie']);
// Substrings that mark a credential-bearing custom header (x-api-key, x-auth-token,
// x-client-secret, ...). Broader than strictly needed: a redacted harmless header costs
// a little debugging, a stored credential costs a breach.
const SENSITIVE_PARTS = ['secret', 'token', 'key', 'password', 'cookie', 'signature', 'auth'];

export function isSensitiveHeader(name: string): boolean {
  const key = name.toLowerCase();
  if (ALWAYS_REDACTED.has(key)) return true;
  if (key === 'idempotency-key') return false; // the run id, needed to correlate with the receiver
  return SENSITIVE_PARTS.some((part) => key.includes(part));
}

// The answer per header name: every delivery redacts the same few names (Belfry's own and the
// job's), and the substring scan per name and delivery showed in a busy node's profile.
const sensitiveNames = new Map<string, boolean>();
const SENSITIVE_NAMES_MAX = 1024;

function isSensitiveCached(name: string): boolean {
  let sensitive = sensitiveNames.get(name);
  if (sensitive === undefined) {
    sensitive = isSensitiveHeader(name);
    if (sensitiveNames.size >= SENSITIVE_NAMES_MAX) sensitiveNames.clear();
    sensitiveNames.set(name, sensitive);
  }
  return sensitive;
}

/** A copy of the sent headers that is safe to store and show in the dashboard. */
export function redactHeaders(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of Object.keys(headers)) out[name] = isSensitiveCached(name) ? REDACTED : (headers[name] as string);
  return out;
}

/** A request ready to send (HttpHandler.prepare): what build() made of the target. */
export class PreparedRequest {
  constructor(
    readonly method: HttpMethod,
    readonly url: CheckedUrl,
    readonly headers: Record<string, string>,
    /** the copy stored with the attempt */
    readonly redactedHeaders: Record<string, string>,
    readonly body: Buffer | null,
    /** when the attempt starts (ms), as stamped */
    readonly startMs: number,
    private readonly attempt: Pick<HandlerContext, 'runId' | 'attempt'>,
  ) {}

  isFor(ctx: HandlerContext): boolean {
    return ctx.runId === this.attempt.runId && ctx.attempt === this.attempt.attempt;
  }
}

/** The headers were built but the request cannot be sent (signing failed, bad URL): the attempt
 *  still records the headers it would have had. */
export class UnsentRequestError extends Error {
  constructor(
    readonly error: Error,
    readonly redactedHeaders: Record<string, string>,
  ) {
    super(error.message);
  }
}
