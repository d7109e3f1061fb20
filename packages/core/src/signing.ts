// Webhook signing per Standard Webhooks (https://www.standardwebhooks.com): secret
// generation, the `webhook-signature` header value (one signature per active secret so
// receivers keep verifying during a secret rotation), and verification.
//
// Signed content is `${msgId}.${timestamp}.${body}`, HMAC-SHA256 keyed with the
// base64-decoded part of a `whsec_` secret. Timestamp freshness (replay window) is the
// caller's job: this module only answers "was this signed with one of these secrets".
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

const SECRET_PREFIX = 'whsec_';
const MIN_KEY_BYTES = 24;
const MAX_KEY_BYTES = 64;
// base64 of a 32-byte HMAC-SHA256 digest is always 43 characters plus one '='.
const SIGNATURE_SHAPE = /^[A-Za-z0-9+/]{43}=$/;
const STRICT_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** A fresh secret: `whsec_` + base64 of 32 CSPRNG bytes. */
export function generateSigningSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64');
}

/**
 * Decodes a `whsec_` secret into its HMAC key. Buffer.from(…, 'base64') silently skips
 * invalid characters, so a mangled secret would still yield *some* key and every
 * signature would quietly be wrong; validate strictly and throw instead.
 */
function secretKey(secret: string): Buffer {
  if (typeof secret !== 'string' || !secret.startsWith(SECRET_PREFIX)) {
    throw new TypeError('signing secret must start with "whsec_"');
  }
  const b64 = secret.slice(SECRET_PREFIX.length);
  if (!STRICT_BASE64.test(b64)) {
    throw new TypeError('signing secret is not valid base64 after "whsec_"');
  }
  const key = Buffer.from(b64, 'base64');
  if (key.length < MIN_KEY_BYTES || key.length > MAX_KEY_BYTES) {
    throw new RangeError(`signing secret must decode to ${MIN_KEY_BYTES}..${MAX_KEY_BYTES} bytes`);
  }
  return key;
}

// Decoded keys by secret: a worker signs every delivery with the same few tenant secrets, and
// validating and decoding the base64 each time showed in its profile. Bounded; cleared when full.
const keys = new Map<string, Buffer>();
const KEYS_MAX = 256;

function cachedSecretKey(secret: string): Buffer {
  let key = keys.get(secret);
  if (!key) {
    key = secretKey(secret); // throws for a bad secret, which is then not kept
    if (keys.size >= KEYS_MAX) keys.clear();
    keys.set(secret, key);
  }
  return key;
}

/**
 * msg ids must not contain '.', the field separator of the signed content: otherwise
 * ("a.1", 2, "x") and ("a", 1, "2.x") sign the same bytes, and a signature could be
 * replayed with re-split header values. They must also be valid header text without
 * spaces. Our ids (ids.ts) are `prefix_ULID`, which qualifies.
 */
function isValidMsgId(msgId: unknown): msgId is string {
  return typeof msgId === 'string' && /^[\x21-\x7e]+$/.test(msgId) && !msgId.includes('.');
}

function isValidTimestamp(ts: unknown): ts is number {
  return typeof ts === 'number' && Number.isSafeInteger(ts) && ts >= 0;
}

function digest(key: Buffer, msgId: string, timestampSeconds: number, body: string): string {
  return createHmac('sha256', key).update(`${msgId}.${timestampSeconds}.${body}`, 'utf8').digest('base64');
}

/** `v1,<base64 HMAC-SHA256(key, "${msgId}.${timestampSeconds}.${body}")>`. Throws on invalid input. */
export function signPayload(secret: string, msgId: string, timestampSeconds: number, body: string): string {
  if (!isValidMsgId(msgId)) throw new TypeError('msgId must be non-empty printable ASCII without "." or spaces');
  if (!isValidTimestamp(timestampSeconds)) throw new RangeError('timestampSeconds must be a non-negative integer');
  return `v1,${digest(cachedSecretKey(secret), msgId, timestampSeconds, body)}`;
}

/**
 * The `webhook-signature` header: one space-separated signature per secret, current
 * secret first, then the previous one while a rotation is in progress, so receivers
 * that still hold the old secret keep verifying.
 */
export function webhookSignatureHeader(
  secrets: string[],
  msgId: string,
  timestampSeconds: number,
  body: string,
): string {
  if (secrets.length === 0) throw new RangeError('at least one signing secret is required');
  return secrets.map((s) => signPayload(s, msgId, timestampSeconds, body)).join(' ');
}

/**
 * True if any `v1` signature in `header` matches `body` under any of `secrets`.
 * Request-derived input (header, msgId, timestamp) never throws, it just fails to
 * verify; malformed *secrets* are configuration bugs and throw.
 * Comparisons are constant-time and every candidate is checked (no early exit) so
 * timing reveals nothing about which signature or how much of it matched.
 */
export function verifySignature(
  secrets: string[],
  msgId: string,
  timestampSeconds: number,
  body: string,
  header: string,
): boolean {
  const keys = secrets.map(secretKey);
  if (typeof header !== 'string' || typeof body !== 'string') return false;
  if (!isValidMsgId(msgId) || !isValidTimestamp(timestampSeconds)) return false;

  const candidates: Buffer[] = [];
  for (const entry of header.split(' ')) {
    const comma = entry.indexOf(',');
    if (comma < 0 || entry.slice(0, comma) !== 'v1') continue; // unknown versions are skipped, per spec
    const sig = entry.slice(comma + 1);
    // Compare the base64 text, not decoded bytes: lenient decoding would accept many
    // spellings of one signature. The shape is public (44 base64 chars), so filtering
    // on it leaks nothing, and it keeps both sides the same length for timingSafeEqual.
    if (SIGNATURE_SHAPE.test(sig)) candidates.push(Buffer.from(sig, 'ascii'));
  }

  let matched = false;
  for (const key of keys) {
    const expected = Buffer.from(digest(key, msgId, timestampSeconds, body), 'ascii');
    for (const candidate of candidates) {
      // Non-short-circuiting OR keeps the loop's work independent of where a match is.
      matched = timingSafeEqual(expected, candidate) || matched;
    }
  }
  return matched;
}
