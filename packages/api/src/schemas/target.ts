// Webhook target and payload input rules. The engine sends exactly what is stored here, so
// everything that would make a delivery ambiguous or unsafe is refused at the door: URLs
// with credentials or odd hosts, headers that would smuggle a second request or override
// the ones Belfry signs, payloads too large or too deep to serialise cheaply.
import { parseHostAsIp } from '@belfry/core';
import { z } from 'zod';
import { findUnstorableText, hasControlCharacter, textProblem } from './text';

export const MAX_URL_LENGTH = 2048;
export const MAX_HEADERS = 50;
export const MAX_HEADER_BYTES = 8 * 1024;
export const MAX_PAYLOAD_BYTES = 256 * 1024;
export const MAX_PAYLOAD_DEPTH = 32;

// RFC 7230 token characters.
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
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

/** Null for an acceptable target URL, else why it is not. */
function urlProblem(value: string): string | null {
  // The URL parser silently drops tabs and newlines and trims spaces; what we store must be
  // exactly what we validated.
  if (hasControlCharacter(value, true)) return 'must not contain spaces or control characters';
  const text = textProblem(value);
  if (text) return text;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an absolute http:// or https:// URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must use http or https';
  if (url.username !== '' || url.password !== '') return 'must not contain credentials; send them in a header instead';
  if (url.hostname === '') return 'must have a host';
  try {
    parseHostAsIp(url.hostname);
  } catch {
    return `has an invalid host '${url.hostname}'`;
  }
  return null;
}

function checkUrl(value: string, ctx: z.core.$RefinementCtx<string>): void {
  const problem = urlProblem(value);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
}

export const TargetUrl = z
  .string()
  .min(1, { error: 'is required' })
  .max(MAX_URL_LENGTH, { error: `must be at most ${MAX_URL_LENGTH} characters` })
  .superRefine(checkUrl)
  .meta({
    format: 'uri',
    description: 'http:// or https:// URL without credentials',
    example: 'https://example.com/hook',
  });

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
    // Field values may hold tabs, not CR, LF, NUL or other controls (header injection).
    const text = textProblem(value);
    if (hasControlCharacter(value.replaceAll('\t', ''))) {
      at('value must not contain CR, LF, NUL or other control characters');
    } else if (text) at(`value ${text}`);
    seen.add(lower);
  }
  if (bytes > MAX_HEADER_BYTES) {
    ctx.addIssue({ code: 'custom', message: `headers must total at most ${MAX_HEADER_BYTES} bytes` });
  }
}

export const TargetHeaders = z
  .record(z.string(), z.string({ error: 'must be a string' }))
  .superRefine(checkHeaders)
  .meta({
    description: `At most ${MAX_HEADERS} headers, ${MAX_HEADER_BYTES} bytes in all`,
    example: { 'x-team': 'billing' },
  });

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
  // Depth first: it bounds the cost of the walk below.
  if (jsonDepth(value, MAX_PAYLOAD_DEPTH) > MAX_PAYLOAD_DEPTH) {
    ctx.addIssue({ code: 'custom', message: `must be nested at most ${MAX_PAYLOAD_DEPTH} levels deep` });
    return;
  }
  const bad = findUnstorableText(value);
  if (bad) {
    ctx.addIssue({ code: 'custom', path: bad.path, message: bad.message });
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
  .meta({
    description: `Any JSON, sent as the request body; at most ${MAX_PAYLOAD_BYTES} bytes serialised`,
    example: { any: 'json' },
  });
