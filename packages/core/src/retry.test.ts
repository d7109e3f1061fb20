import { describe, expect, it } from 'vitest';
import { isRetryable, parseRetryAfter, retryDelayMs, shouldRetry, type RetryPolicy } from './retry';

const policy: RetryPolicy = { maxAttempts: 5, initialDelaySeconds: 10, maxDelaySeconds: 300 };
const top = () => 1;
const bottom = () => 0;
const half = () => 0.5;

describe('retryDelayMs', () => {
  it('doubles the base per attempt until the cap (random = 1 gives the base)', () => {
    expect([1, 2, 3, 4, 5, 6, 7].map((a) => retryDelayMs(policy, a, top))).toEqual([
      10_000, 20_000, 40_000, 80_000, 160_000, 300_000, 300_000,
    ]);
  });

  it('applies full jitter: uniform in [0, base]', () => {
    expect(retryDelayMs(policy, 1, bottom)).toBe(0);
    expect(retryDelayMs(policy, 1, half)).toBe(5_000);
    expect(retryDelayMs(policy, 3, () => 0.25)).toBe(10_000);
    let seed = 42;
    const lcg = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (let i = 0; i < 1000; i++) {
      const d = retryDelayMs(policy, 4, lcg);
      expect(d).toBeGreaterThanOrEqual(0);
      expect(d).toBeLessThanOrEqual(80_000);
      expect(Number.isInteger(d)).toBe(true);
    }
  });

  it('does not overflow for huge attempt numbers', () => {
    for (const attempt of [64, 1000, 1025, 1e6, Number.MAX_SAFE_INTEGER, Infinity]) {
      expect(retryDelayMs(policy, attempt, top)).toBe(300_000);
      expect(retryDelayMs(policy, attempt, half)).toBe(150_000);
    }
  });

  it('handles a zero initial delay without NaN', () => {
    const p = { maxAttempts: 3, initialDelaySeconds: 0, maxDelaySeconds: 60 };
    expect(retryDelayMs(p, 2000, top)).toBe(0);
    expect(retryDelayMs(p, 1, top, 5_000)).toBe(5_000);
  });

  it('treats attempt < 1 or NaN as the first attempt', () => {
    expect(retryDelayMs(policy, 0, top)).toBe(10_000);
    expect(retryDelayMs(policy, -5, top)).toBe(10_000);
    expect(retryDelayMs(policy, Number.NaN, top)).toBe(10_000);
  });

  it('clamps a misbehaving random source', () => {
    expect(retryDelayMs(policy, 1, () => 7)).toBe(10_000);
    expect(retryDelayMs(policy, 1, () => -1)).toBe(0);
    expect(retryDelayMs(policy, 1, () => Number.NaN)).toBe(0);
  });

  it('caps at maxDelay even when initialDelay exceeds it', () => {
    const p = { maxAttempts: 3, initialDelaySeconds: 100, maxDelaySeconds: 30 };
    expect(retryDelayMs(p, 1, top)).toBe(30_000);
  });

  it('honours Retry-After as a floor, but never beyond maxDelay', () => {
    expect(retryDelayMs(policy, 1, bottom, 42_000)).toBe(42_000);
    expect(retryDelayMs(policy, 1, top, 2_000)).toBe(10_000); // jitter already longer
    expect(retryDelayMs(policy, 1, bottom, 10 * 60_000)).toBe(300_000);
    expect(retryDelayMs(policy, 1, bottom, Number.MAX_SAFE_INTEGER)).toBe(300_000);
    expect(retryDelayMs(policy, 1, half, null)).toBe(5_000);
    expect(retryDelayMs(policy, 1, half, undefined)).toBe(5_000);
    expect(retryDelayMs(policy, 1, half, -1_000)).toBe(5_000);
    expect(retryDelayMs(policy, 1, half, Number.NaN)).toBe(5_000);
  });

  it('never exceeds a fractional-millisecond cap', () => {
    const p = { maxAttempts: 3, initialDelaySeconds: 0.0004, maxDelaySeconds: 0.0015 };
    expect(retryDelayMs(p, 10, top)).toBe(1);
    expect(retryDelayMs(p, 10, top, 99)).toBe(1);
  });

  it('rejects invalid policies', () => {
    expect(() => retryDelayMs({ ...policy, initialDelaySeconds: -1 }, 1, top)).toThrow(RangeError);
    expect(() => retryDelayMs({ ...policy, maxDelaySeconds: Number.NaN }, 1, top)).toThrow(RangeError);
    expect(() => retryDelayMs({ ...policy, maxDelaySeconds: Infinity }, 1, top)).toThrow(RangeError);
  });
});

describe('parseRetryAfter', () => {
  const now = new Date('2024-03-01T12:00:00.000Z');

  it('parses delay-seconds', () => {
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter('0', now)).toBe(0);
    expect(parseRetryAfter('  7 ', now)).toBe(7_000);
    expect(parseRetryAfter('9'.repeat(400), now)).toBe(Number.MAX_SAFE_INTEGER);
  });

  it('parses all three HTTP-date forms', () => {
    expect(parseRetryAfter('Fri, 01 Mar 2024 12:01:30 GMT', now)).toBe(90_000);
    expect(parseRetryAfter('Friday, 01-Mar-24 12:01:30 GMT', now)).toBe(90_000);
    expect(parseRetryAfter('Fri Mar  1 12:01:30 2024', now)).toBe(90_000);
    expect(parseRetryAfter('fri, 01 mar 2024 12:00:01 gmt', now)).toBe(1_000);
  });

  it('interprets two-digit RFC 850 years relative to now', () => {
    // '99 is 75 years ahead of 2024, so it means 1999 (in the past -> 0).
    expect(parseRetryAfter('Monday, 01-Mar-99 12:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('Saturday, 01-Mar-25 12:00:00 GMT', now)).toBe(365 * 86_400_000);
  });

  it('gives 0 for dates in the past', () => {
    expect(parseRetryAfter('Sun, 06 Nov 1994 08:49:37 GMT', now)).toBe(0);
  });

  it('accepts a leap second', () => {
    expect(parseRetryAfter('Fri, 01 Mar 2024 12:00:60 GMT', now)).toBe(60_000);
  });

  it('rejects anything else', () => {
    for (const v of [
      null,
      undefined,
      '',
      '   ',
      '-1',
      '1.5',
      '+5',
      '1e3',
      '0x10',
      'soon',
      'Fri, 31 Feb 2024 12:00:00 GMT',
      'Fri, 01 Foo 2024 12:00:00 GMT',
      'Fri, 01 Mar 2024 25:00:00 GMT',
      'Fri, 01 Mar 2024 12:00:00 PST',
      '2024-03-01T12:01:00Z',
      'Fri, 1 Mar 2024 12:00:00 GMT',
    ]) {
      expect(parseRetryAfter(v, now), String(v)).toBeNull();
    }
  });
});

describe('isRetryable', () => {
  it('retries transient failures', () => {
    expect(isRetryable('timeout')).toBe(true);
    expect(isRetryable('connection')).toBe(true);
    for (const s of [408, 429, 500, 502, 503, 504, 599]) expect(isRetryable('http', s), String(s)).toBe(true);
  });

  it('does not retry verdicts', () => {
    for (const s of [200, 204, 301, 302, 307, 400, 401, 403, 404, 409, 410, 422, 600, 499.5]) {
      expect(isRetryable('http', s), String(s)).toBe(false);
    }
    expect(isRetryable('http')).toBe(false);
    expect(isRetryable('http', null)).toBe(false);
    expect(isRetryable('refused')).toBe(false);
    expect(isRetryable('refused', 503)).toBe(false);
    expect(isRetryable('invalid')).toBe(false);
  });
});

describe('shouldRetry', () => {
  it('retries while attempts remain and the failure is retryable', () => {
    expect(shouldRetry(policy, 1, true)).toBe(true);
    expect(shouldRetry(policy, 4, true)).toBe(true);
    expect(shouldRetry(policy, 5, true)).toBe(false);
    expect(shouldRetry(policy, 6, true)).toBe(false);
    expect(shouldRetry(policy, 1, false)).toBe(false);
    expect(shouldRetry({ ...policy, maxAttempts: 1 }, 1, true)).toBe(false);
  });
});
