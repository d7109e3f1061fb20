// Retry policy maths: exponential backoff with full jitter, Retry-After parsing and the
// decision whether a failed delivery attempt may be retried. Pure: randomness and the
// current time are passed in so callers (and tests) control them.

export interface RetryPolicy {
  maxAttempts: number;
  initialDelaySeconds: number;
  maxDelaySeconds: number;
}

/**
 * Why an attempt failed: it timed out, the connection failed, the target answered an HTTP
 * error, the target was refused (private address), the request was invalid, or the lease of
 * whoever ran it expired (a worker that died or stopped heartbeating — its outcome is unknown);
 * for containers, the process exited non-zero (`exit`) or its image could not be had (`image`).
 */
export type FailureKind = 'timeout' | 'connection' | 'http' | 'refused' | 'invalid' | 'lease' | 'exit' | 'image';

function assertPolicy(policy: RetryPolicy): void {
  const { initialDelaySeconds: initial, maxDelaySeconds: max } = policy;
  // A NaN or infinite delay would end up in a timer or a database column; policies are
  // validated at the API boundary, so reaching here with one is a bug worth surfacing.
  if (!Number.isFinite(initial) || initial < 0) {
    throw new RangeError(`initialDelaySeconds must be a finite number >= 0, got ${initial}`);
  }
  if (!Number.isFinite(max) || max < 0) {
    throw new RangeError(`maxDelaySeconds must be a finite number >= 0, got ${max}`);
  }
}

/**
 * Delay in whole milliseconds before the attempt after `attempt` (the 1-based number of
 * the attempt that just failed).
 *
 * base = min(maxDelay, initialDelay * 2^(attempt-1)); delay = uniform [0, base] (full
 * jitter, which spreads retries of jobs that failed together so they don't stampede the
 * target again in lockstep). A Retry-After from the target raises the delay to at least
 * what it asked for, but never beyond maxDelay: the policy is the customer's contract.
 */
export function retryDelayMs(
  policy: RetryPolicy,
  attempt: number,
  random: () => number,
  retryAfterMs?: number | null,
): number {
  assertPolicy(policy);
  const capMs = policy.maxDelaySeconds * 1000;
  // Attempt counts come from stored state; 0, negative or NaN still means "first retry"
  // (NaN > 1 is false), while Infinity falls through to the cap below.
  const exponent = attempt > 1 ? Math.floor(attempt) - 1 : 0;
  // 2 ** exponent is Infinity past 1023, which min() clamps to the cap; the only way to
  // get NaN is 0 * Infinity, hence the explicit zero-initial-delay branch.
  const baseMs =
    policy.initialDelaySeconds === 0
      ? 0
      : Math.min(capMs, policy.initialDelaySeconds * 1000 * 2 ** Math.min(exponent, 1100));

  const r = random();
  // Guard against a random source that returns 1, >1, negative or NaN.
  const unit = Number.isFinite(r) ? Math.min(Math.max(r, 0), 1) : 0;
  let delay = unit * baseMs;

  if (retryAfterMs != null && Number.isFinite(retryAfterMs) && retryAfterMs > 0) {
    delay = Math.max(delay, retryAfterMs);
  }
  // Floor (not round) so the result can never exceed a fractional-millisecond cap.
  return Math.floor(Math.min(Math.max(delay, 0), capMs));
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const TIME = '(\\d{2}):(\\d{2}):(\\d{2})';
// RFC 9110 §5.6.7: recipients must accept all three HTTP-date formats.
const IMF_FIXDATE = new RegExp(`^[a-z]{3}, (\\d{2}) ([a-z]{3}) (\\d{4}) ${TIME} gmt$`);
const RFC850_DATE = new RegExp(`^[a-z]{6,9}, (\\d{2})-([a-z]{3})-(\\d{2}) ${TIME} gmt$`);
const ASCTIME_DATE = new RegExp(`^[a-z]{3} ([a-z]{3}) ([ \\d]\\d) ${TIME} (\\d{4})$`);

function utcMs(year: number, monthName: string, day: number, hh: number, mm: number, ss: number): number | null {
  const month = MONTHS.indexOf(monthName);
  if (month < 0 || hh > 23 || mm > 59 || ss > 60) return null;
  // setUTCFullYear rather than Date.UTC, which maps years 0..99 to 1900..1999.
  const d = new Date(0);
  d.setUTCFullYear(year, month, day);
  // Date silently rolls "31 Feb" into March; reject instead of guessing.
  if (d.getUTCMonth() !== month || d.getUTCDate() !== day) return null;
  // A leap second (":60") is legal in HTTP-date; setUTCHours rolls it to the next minute.
  return d.setUTCHours(hh, mm, ss);
}

function parseHttpDate(value: string, now: Date): number | null {
  const v = value.toLowerCase();
  let m = IMF_FIXDATE.exec(v);
  if (m) return utcMs(+m[3]!, m[2]!, +m[1]!, +m[4]!, +m[5]!, +m[6]!);
  m = RFC850_DATE.exec(v);
  if (m) {
    // RFC 9110: a two-digit year that appears more than 50 years in the future is
    // taken to be the most recent past year with the same last two digits.
    const nowYear = now.getUTCFullYear();
    let year = Math.floor(nowYear / 100) * 100 + Number(m[3]);
    if (year > nowYear + 50) year -= 100;
    return utcMs(year, m[2]!, +m[1]!, +m[4]!, +m[5]!, +m[6]!);
  }
  m = ASCTIME_DATE.exec(v);
  if (m) return utcMs(+m[6]!, m[1]!, +m[2]!.trim(), +m[3]!, +m[4]!, +m[5]!);
  return null;
}

/**
 * Parses a Retry-After header (delay-seconds or HTTP-date) into milliseconds from `now`.
 * Dates in the past give 0. Anything else (fractions, negatives, free text) gives null.
 * We parse HTTP-dates ourselves because Date.parse accepts almost anything ("1" is
 * the year 2001 in V8), and a lenient parse would let targets dictate odd delays.
 */
export function parseRetryAfter(value: string | null | undefined, now: Date): number | null {
  if (value == null) return null;
  const v = value.trim();
  if (v === '') return null;
  if (/^\d+$/.test(v)) {
    const ms = Number(v) * 1000;
    // A 400-digit value is syntactically valid and means "a very long time"; keep it a
    // finite integer so downstream maths stays sane (retryDelayMs caps it anyway).
    return Math.min(ms, Number.MAX_SAFE_INTEGER);
  }
  const at = parseHttpDate(v, now);
  const diff = at === null ? Number.NaN : at - now.getTime(); // NaN too if `now` is an Invalid Date
  return Number.isFinite(diff) ? Math.max(0, diff) : null;
}

/**
 * Timeouts, connection errors, 408, 429 and 5xx are transient and worth retrying, and so is
 * an attempt whose lease expired (the worker died; the target may be fine), a container that
 * exited non-zero and an image that could not be pulled (the job's `retry` bounds them).
 * Everything else is a verdict that won't change by asking again: other 4xx, 3xx
 * (redirects are deliberately not followed, so retrying would redirect again), targets
 * refused by the SSRF guard, and invalid requests. An 'http' failure without a status
 * is malformed input and is not retried.
 */
export function isRetryable(kind: FailureKind, httpStatus?: number | null): boolean {
  switch (kind) {
    case 'timeout':
    case 'connection':
    case 'lease':
    case 'exit':
    case 'image':
      return true;
    case 'http':
      if (httpStatus == null || !Number.isInteger(httpStatus)) return false;
      return httpStatus === 408 || httpStatus === 429 || (httpStatus >= 500 && httpStatus <= 599);
    case 'refused':
    case 'invalid':
      return false;
    default:
      return false;
  }
}

/** Whether another attempt should be scheduled after `attempt` (1-based) failed. */
export function shouldRetry(policy: RetryPolicy, attempt: number, retryable: boolean): boolean {
  return retryable && attempt < policy.maxAttempts;
}
