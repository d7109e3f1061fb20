// The sign-in and sign-up throttles on real token buckets: an attacker who fails on purpose
// cannot lock anyone else out, one address cannot spray many accounts, and sign-ups count
// per client address.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { THROTTLES, throttleSignIn, throttleSignUp, UNKNOWN_ADDRESS } from '../src/dashboard/throttle';
import { createHarness, type Harness } from './support';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(() => h.close());

async function exhaust(fn: () => Promise<void>): Promise<number> {
  for (let i = 0; i < 1000; i++) {
    try {
      await fn();
    } catch (err) {
      expect(err).toMatchObject({ code: 'rate_limited' });
      return i;
    }
  }
  throw new Error('never throttled');
}

describe('sign-in throttle', () => {
  it('an attacker failing from their own address does not lock the owner out of theirs', async () => {
    const owner = 'owner@example.com';
    const tries = await exhaust(() => throttleSignIn(h.deps, owner, '198.51.100.66'));
    expect(tries).toBe(THROTTLES.signin.burst);
    // the attacker is stopped ...
    await expect(throttleSignIn(h.deps, 'OWNER@example.com', '198.51.100.66')).rejects.toMatchObject({
      code: 'rate_limited',
    });
    // ... the owner, from their own address, is not
    await expect(throttleSignIn(h.deps, owner, '203.0.113.10')).resolves.toBeUndefined();
  });

  it('one address spraying many accounts is stopped by its own looser limit', async () => {
    let n = 0;
    const tries = await exhaust(() => throttleSignIn(h.deps, `victim${++n}@example.com`, '198.51.100.77'));
    expect(tries).toBe(THROTTLES.signinAddress.burst);
    // that address is throttled for every account; other addresses are not
    await expect(throttleSignIn(h.deps, 'fresh@example.com', '198.51.100.77')).rejects.toMatchObject({
      code: 'rate_limited',
    });
    await expect(throttleSignIn(h.deps, 'fresh@example.com', '198.51.100.78')).resolves.toBeUndefined();
  });

  it('without a known address it still limits guesses at one account', async () => {
    const tries = await exhaust(() => throttleSignIn(h.deps, 'lonely@example.com', UNKNOWN_ADDRESS));
    expect(tries).toBe(THROTTLES.signin.burst);
  });
});

describe('sign-up throttle', () => {
  it('counts per client address', async () => {
    const tries = await exhaust(() => throttleSignUp(h.deps, '198.51.100.88'));
    expect(tries).toBe(THROTTLES.signup.burst);
    await expect(throttleSignUp(h.deps, '198.51.100.89')).resolves.toBeUndefined();
  });
});
