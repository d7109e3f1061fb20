// verifyWebhook: what the receiver of a Belfry delivery calls before trusting it. Belfry signs
// per Standard Webhooks (standardwebhooks.com): `webhook-signature` holds one or more
// space-separated `v1,<base64 HMAC-SHA256(key, "{webhook-id}.{webhook-timestamp}.{body}")>`,
// where key is the base64-decoded part of a `whsec_` secret; during a secret rotation each
// delivery carries a signature per active secret. Node only (node:crypto).
import { createHmac, timingSafeEqual } from 'node:crypto';

/** A Fetch `Headers`, or Node's `req.headers` (names lower-case, values strings or arrays). */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

export interface VerifyWebhookOptions {
  /** how far `webhook-timestamp` may be from now, either way; default 300 s (5 minutes) */
  toleranceSeconds?: number;
  /** the clock; default the system clock */
  now?: () => Date;
}

/** A delivery whose signature checked out. */
export interface VerifiedWebhook<T = unknown> {
  /** `webhook-id`: the run id, the same on every attempt of a run — deduplicate on it */
  id: string;
  /** when this attempt was signed (`webhook-timestamp`) */
  timestamp: Date;
  /** the body parsed as JSON; undefined when the job has no payload (or the method is GET/HEAD) */
  payload: T;
  /** `belfry-job-id`, `belfry-scheduled-time` and `belfry-attempt`, null when absent */
  jobId: string | null;
  scheduledTime: string | null;
  attempt: number | null;
}

export type WebhookVerificationReason =
  | 'missing-headers'
  | 'invalid-timestamp'
  | 'timestamp-too-old'
  | 'timestamp-too-new'
  | 'no-matching-signature'
  | 'invalid-body';

export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
  constructor(
    readonly reason: WebhookVerificationReason,
    message: string,
  ) {
    super(message);
  }
}

const SECRET_PREFIX = 'whsec_';
const STRICT_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
// base64 of a 32-byte HMAC-SHA256 digest: 43 characters and one '='.
const SIGNATURE_SHAPE = /^[A-Za-z0-9+/]{43}=$/;

/**
 * Checks a delivery and answers its parts; throws WebhookVerificationError when it is not
 * authentic or not fresh. Pass the body exactly as received (the raw bytes or their UTF-8
 * text — not a re-serialised object), the request headers and the tenant's signing secret,
 * or several secrets while you roll over to a rotated one.
 */
export function verifyWebhook<T = unknown>(
  body: string | Uint8Array,
  headers: WebhookHeaders,
  secrets: string | readonly string[],
  options: VerifyWebhookOptions = {},
): VerifiedWebhook<T> {
  const keys = (typeof secrets === 'string' ? [secrets] : secrets).map(secretKey);
  if (keys.length === 0) throw new TypeError('verifyWebhook needs at least one signing secret');
  const id = header(headers, 'webhook-id');
  const timestampText = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestampText || !signatures) {
    throw new WebhookVerificationError(
      'missing-headers',
      'webhook-id, webhook-timestamp and webhook-signature are all required',
    );
  }
  if (!/^\d{1,15}$/.test(timestampText)) {
    throw new WebhookVerificationError('invalid-timestamp', 'webhook-timestamp is not Unix seconds');
  }
  const timestamp = Number(timestampText);
  const nowSeconds = Math.floor((options.now?.() ?? new Date()).getTime() / 1000);
  const tolerance = options.toleranceSeconds ?? 300;
  if (timestamp < nowSeconds - tolerance) {
    throw new WebhookVerificationError('timestamp-too-old', `webhook-timestamp is more than ${tolerance} s old`);
  }
  if (timestamp > nowSeconds + tolerance) {
    throw new WebhookVerificationError('timestamp-too-new', `webhook-timestamp is more than ${tolerance} s ahead`);
  }

  const bytes =
    typeof body === 'string' ? Buffer.from(body, 'utf8') : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  const signed = Buffer.concat([Buffer.from(`${id}.${timestamp}.`, 'utf8'), bytes]);
  const candidates = signatures
    .split(' ')
    .filter((entry) => entry.startsWith('v1,'))
    .map((entry) => entry.slice(3))
    .filter((sig) => SIGNATURE_SHAPE.test(sig))
    .map((sig) => Buffer.from(sig, 'ascii'));
  let matched = false;
  for (const key of keys) {
    const expected = Buffer.from(createHmac('sha256', key).update(signed).digest('base64'), 'ascii');
    // Every pair is compared, in constant time and without stopping at a match, so the time
    // taken tells nothing about which signature matched or how much of one did.
    for (const candidate of candidates) matched = timingSafeEqual(expected, candidate) || matched;
  }
  if (!matched) {
    throw new WebhookVerificationError('no-matching-signature', 'no signature matches the body under these secrets');
  }

  let payload: unknown;
  try {
    payload = bytes.length === 0 ? undefined : JSON.parse(bytes.toString('utf8'));
  } catch {
    throw new WebhookVerificationError('invalid-body', 'the signed body is not JSON');
  }
  const attempt = header(headers, 'belfry-attempt');
  return {
    id,
    timestamp: new Date(timestamp * 1000),
    payload: payload as T,
    jobId: header(headers, 'belfry-job-id'),
    scheduledTime: header(headers, 'belfry-scheduled-time'),
    attempt: attempt && /^\d+$/.test(attempt) ? Number(attempt) : null,
  };
}

function header(headers: WebhookHeaders, name: string): string | null {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name);
  const record = headers as Record<string, string | string[] | undefined>;
  const value = record[name] ?? Object.entries(record).find(([key]) => key.toLowerCase() === name)?.[1];
  return (Array.isArray(value) ? value.join(' ') : value) || null;
}

/**
 * The HMAC key of a `whsec_` secret. A mangled secret would otherwise decode to some other
 * key (Buffer's base64 decoder skips what it does not know) and every delivery would fail to
 * verify with no hint why, so it is checked strictly and refused loudly.
 */
function secretKey(secret: string): Buffer {
  if (typeof secret !== 'string' || !secret.startsWith(SECRET_PREFIX)) {
    throw new TypeError('a signing secret starts with "whsec_"');
  }
  const b64 = secret.slice(SECRET_PREFIX.length);
  if (!STRICT_BASE64.test(b64) || b64.length === 0) throw new TypeError('a signing secret is base64 after "whsec_"');
  return Buffer.from(b64, 'base64');
}
