// Reading requests defensively: bodies are capped while they stream (not only by their
// Content-Length), must be JSON, and are parsed before any schema sees them; query strings
// may not repeat a parameter.
import { AppError } from '../errors';
import { jsonDepth } from '../schemas/target';
import { findUnstorableText, textProblem } from '../schemas/text';

/** The largest body read. Payloads are capped at 256 KiB serialised; the rest is envelope. */
export const MAX_BODY_BYTES = 512 * 1024;
export const MAX_BODY_DEPTH = 64;

function tooLarge(max: number): AppError {
  return new AppError('payload_too_large', `the request body must be at most ${max} bytes`);
}

function isJsonType(contentType: string): boolean {
  const [type = '', ...params] = contentType.split(';').map((p) => p.trim().toLowerCase());
  if (type !== 'application/json' && !/^application\/[a-z0-9.+-]+\+json$/.test(type)) return false;
  const charset = params.find((p) => p.startsWith('charset='));
  return !charset || /^charset="?utf-8"?$/.test(charset);
}

/**
 * The raw body, read while it streams and abandoned as soon as it passes `max` bytes (413),
 * so a huge body never sits in memory whatever its Content-Length says.
 */
export async function readCapped(request: Request, max = MAX_BODY_BYTES): Promise<Uint8Array> {
  const declared = request.headers.get('content-length');
  if (declared !== null && /^\d+$/.test(declared) && Number(declared) > max) throw tooLarge(max);
  if (!request.body) return new Uint8Array();
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel().catch(() => {});
      throw tooLarge(max);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

/**
 * The parsed JSON body, or undefined when there is none. A body that is present must be
 * declared as JSON (415 otherwise), fit the cap (413) and parse (400).
 */
export async function readJsonBody(request: Request, maxBytes = MAX_BODY_BYTES): Promise<unknown> {
  const contentType = request.headers.get('content-type');
  const bytes = await readCapped(request, maxBytes);
  // An empty body is no body, whatever its declared type (`curl -X POST` sends none, `-d ''` a form type).
  if (bytes.byteLength === 0) return undefined;
  if (contentType === null || !isJsonType(contentType)) {
    throw new AppError('unsupported_media_type', 'request bodies must be application/json');
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    throw AppError.invalid([{ path: '', message: 'the body is not valid UTF-8' }], 'the body is not valid UTF-8');
  }
  if (text.trim() === '') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    const reason = err instanceof SyntaxError ? err.message : 'too deeply nested';
    throw AppError.invalid(
      [{ path: '', message: `malformed JSON: ${reason}` }],
      `the body is not valid JSON: ${reason}`,
    );
  }
  // Payloads may nest 32 deep; refusing deeper bodies here keeps every later walk cheap.
  if (jsonDepth(parsed, MAX_BODY_DEPTH) > MAX_BODY_DEPTH) {
    throw AppError.invalid([{ path: '', message: `must not be nested more than ${MAX_BODY_DEPTH} levels deep` }]);
  }
  // Whatever field it is in, such text would fail in the database instead of as a 400.
  const bad = findUnstorableText(parsed);
  if (bad) throw AppError.invalid([{ path: bad.path.join('.'), message: bad.message }]);
  return parsed;
}

/** Query parameters as an object; a repeated parameter is an error, not a silent pick. */
export function queryObject(url: URL): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of url.searchParams) {
    if (Object.hasOwn(out, key)) throw AppError.invalid([{ path: key, message: 'must be given at most once' }]);
    const problem = textProblem(value);
    if (problem) throw AppError.invalid([{ path: key, message: problem }]);
    out[key] = value;
  }
  return out;
}

/** The token of `Authorization: Bearer <token>`, or null when there is none. */
export function bearerToken(request: Request): string | null {
  const header = request.headers.get('authorization');
  if (header === null) return null;
  const match = /^Bearer[ ]+(\S+)[ ]*$/i.exec(header);
  return match ? (match[1] as string) : '';
}
