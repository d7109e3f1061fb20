// Webhook target and payload input rules. The engine sends exactly what is stored here, so
// everything that would make a delivery ambiguous or unsafe is refused at the door: URLs
// with credentials or odd hosts, headers that would smuggle a second request or override
// the ones Belfry signs, payloads too large or too deep to serialise cheaply.
import { parseHostAsIp } from '@belfry/core';
import { z } from 'zod';

export const MAX_URL_LENGTH = 2048;
export const MAX_HEADERS = 50;
export const MAX_HEADER_BYTES = 8 * 1024;
export const MAX_PAYLOAD_BYTES = 256 * 1024;
export const MAX_PAYLOAD_DEPTH = 32;

// RFC 7230 token characters.
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
// Field values: visible characters, spaces and tabs (no CR, LF, NUL or other controls).
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\uffff]*$/;
// Set by Belfry on every delivery (signing, idempotency) or managed by the HTTP client;
// letting a job set them would forge signatures or desynchronise the connection.
const RESERVED_HEADERS = new Set([
  'idempotency-key',
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
  'expect',
  'proxy-connection',
]);
const RESERVED_PREFIXES = ['webhook-', 'belfry-'];

export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD'] as const;

function checkUrl(value: string, ctx: z.core.$RefinementCtx<string>): void {
  const fail = (message: string) => ctx.addIssue({ code: 'custom', message });
  // The URL parser silently drops tabs and newlines and trims spaces; what we store must be
  // exactly what we validated.
  if (/[\x00-\x20\x7f]/.test(value)) return fail('must not contain spaces or control characters');
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return fail('must be an absolute http:// or https:// URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return fail('must use http or https');
  if (url.username !== '' || url.password !== '') {
    return fail('must not contain credentials; send them in a header instead');
  }
  if (url.hostname === '') return fail('must have a host');
  try {
    parseHostAsIp(url.hostname);
  } catch {
    return fail(`has an invalid host '${url.hostname}'`);
  }
}

export const TargetUrl = z
  .string()
  .min(1, { error: 'is required' })
  .max(MAX_URL_LENGTH, { error: `must be at most ${MAX_URL_LENGTH} characters` })
  .superRefine(checkUrl)
  .meta({ format: 'uri', description: 'http:// or https:// URL without credentials', example: 'https://example.com/hook' });

function checkHeaders(headers: Record<string, string>, ctx: z.core.$RefinementCtx<Record<string, string>>): void {
  const names = Object.keys(headers);
  if (names.length > MAX_HEADERS) {
    ctx.addIssue({ code: 'custom', message: `at most ${MAX_HEADERS} headers are allowed` });
  }
  const seen = new Set<string>();
  let bytes = 0;
  for (const name of names) {
    const value = headers[name] ?? '';
    const lower = name.toLowerCase();
    const at = (message: string) => ctx.addIssue({ code: 'custom', path: [name], message });
    bytes += Buffer.byteLength(name) + Buffer.byteLength(value);
    if (!TOKEN.test(name)) at('is not a valid header name');
    else if (RESERVED_HEADERS.has(lower) || RESERVED_PREFIXES.some((p) => lower.startsWith(p))) {
      at('is set by Belfry or the HTTP client and cannot be overridden');
    } else if (seen.has(lower)) at('is given twice (header names are case-insensitive)');
    if (!FIELD_VALUE.test(value)) at('value must not contain CR, LF, NUL or other control characters');
    seen.add(lower);
  }
  if (bytes > MAX_HEADER_BYTES) {
    ctx.addIssue({ code: 'custom', message: `headers must total at most ${MAX_HEADER_BYTES} bytes` });
  }
}

export const TargetHeaders = z
  .record(z.string(), z.string({ error: 'must be a string' }))
  .superRefine(checkHeaders)
  .meta({ description: `At most ${MAX_HEADERS} headers, ${MAX_HEADER_BYTES} bytes in all`, example: { 'x-team': 'billing' } });

export const TargetInput = z
  .strictObject({
    type: z.literal('http').default('http'),
    url: TargetUrl,
    method: z.enum(HTTP_METHODS).default('POST'),
    headers: TargetHeaders.default({}),
  })
  .meta({ id: 'TargetInput', description: 'Where each run is delivered' });

/** Nesting depth of a JSON value: scalars 0, `{}`/`[]` 1, and so on. Iterative: no stack to blow. */
export function jsonDepth(value: unknown, limit: number): number {
  let max = 0;
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length) {
    const [v, d] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    const depth = d + 1;
    if (depth > max) max = depth;
    if (max > limit) return max;
    for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push([child, depth]);
  }
  return max;
}

function checkPayload(value: unknown, ctx: z.core.$RefinementCtx<unknown>): void {
  if (value === undefined) return;
  if (jsonDepth(value, MAX_PAYLOAD_DEPTH) > MAX_PAYLOAD_DEPTH) {
    ctx.addIssue({ code: 'custom', message: `must be nested at most ${MAX_PAYLOAD_DEPTH} levels deep` });
    return;
  }
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch {
    text = undefined;
  }
  if (text === undefined) {
    ctx.addIssue({ code: 'custom', message: 'must be JSON' });
  } else if (Buffer.byteLength(text) > MAX_PAYLOAD_BYTES) {
    ctx.addIssue({ code: 'custom', message: `must be at most ${MAX_PAYLOAD_BYTES} bytes as JSON` });
  }
}

export const PayloadInput = z
  .unknown()
  .superRefine(checkPayload)
  .meta({ description: `Any JSON, sent as the request body; at most ${MAX_PAYLOAD_BYTES} bytes serialised`, example: { any: 'json' } });
