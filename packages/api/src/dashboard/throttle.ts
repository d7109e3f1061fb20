// Throttles for the dashboard's unauthenticated doors (sign-in, sign-up), on the same
// database token buckets the API's rate limits use, so every web node shares them.
//
// Sign-in is throttled per (account, client address) pair and, more loosely, per client
// address. Guessing one account's password from one address is slow; spraying many accounts
// from one address is slow; and nobody can lock an owner out by failing on purpose from
// their own address, because the owner's address has a bucket of its own. (A bucket per
// account alone would be exactly that lockout.) The client address is the TCP peer, or the
// proxy's X-Forwarded-For only with BELFRY_TRUST_PROXY=1 (see client-address.ts); when the web
// app cannot see addresses at all it is UNKNOWN_ADDRESS and only the pair bucket applies,
// which then is per account.
import type { ServiceDeps } from '../context';
import { AppError } from '../errors';
import { takeToken } from '../services/rate-limit';

export const UNKNOWN_ADDRESS = 'unknown';

export const THROTTLES = {
  // 10 tries at once, then one every 6 seconds, per account and client address.
  signin: { perSecond: 1 / 6, burst: 10 },
  // 60 tries at once, then one every 2 seconds, per client address, whatever the account.
  signinAddress: { perSecond: 1 / 2, burst: 60 },
  // 20 accounts at once, then one every 10 seconds, per client address.
  signup: { perSecond: 1 / 10, burst: 20 },
} as const;

async function take(deps: Pick<ServiceDeps, 'pool'>, bucket: keyof typeof THROTTLES, key: string): Promise<void> {
  const decision = await takeToken(deps.pool, `${bucket}:${key.toLowerCase()}`, THROTTLES[bucket]);
  if (!decision.allowed) {
    throw new AppError('rate_limited', `too many attempts; try again in ${decision.retryAfterSeconds} s`, {
      retryAfterSeconds: decision.retryAfterSeconds,
    });
  }
}

/** Before checking a password: per (account, address), then per address. */
export async function throttleSignIn(deps: Pick<ServiceDeps, 'pool'>, email: string, address: string): Promise<void> {
  const account = email.trim().toLowerCase();
  await take(deps, 'signin', `${address}|${account}`);
  if (address !== UNKNOWN_ADDRESS) await take(deps, 'signinAddress', address);
}

/** Before creating an account: per client address. */
export async function throttleSignUp(deps: Pick<ServiceDeps, 'pool'>, address: string): Promise<void> {
  await take(deps, 'signup', address);
}
