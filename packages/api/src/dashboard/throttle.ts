// Throttles for the dashboard's unauthenticated doors (sign-in, sign-up), on the same
// database token buckets the API's rate limits use, so every web node shares them.
import type { ServiceDeps } from '../context';
import { AppError } from '../errors';
import { takeToken } from '../services/rate-limit';

const LIMITS = {
  // 10 tries at once, then one every 6 seconds, per address being signed in to.
  signin: { perSecond: 1 / 6, burst: 10 },
  // 20 accounts at once, then one every 10 seconds, per client address (behind no proxy the
  // web app cannot see addresses, and this becomes one bucket for everyone).
  signup: { perSecond: 1 / 10, burst: 20 },
} as const;

export async function throttle(deps: ServiceDeps, door: keyof typeof LIMITS, key: string): Promise<void> {
  const decision = await takeToken(deps.pool, `${door}:${key.toLowerCase()}`, LIMITS[door]);
  if (!decision.allowed) {
    throw new AppError('rate_limited', `too many attempts; try again in ${decision.retryAfterSeconds} s`, {
      retryAfterSeconds: decision.retryAfterSeconds,
    });
  }
}
