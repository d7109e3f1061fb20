// Field schemas more than one kind uses: a map of message or request headers (HTTP requests,
// AMQP and NATS message headers), refused at the door when it would smuggle a second request,
// override the headers Belfry signs, or not fit in the database.
import { hasControlCharacter, textProblem } from '@belfry/core';
import { z } from 'zod';

export const MAX_HEADERS = 50;
export const MAX_HEADER_BYTES = 8 * 1024;

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
