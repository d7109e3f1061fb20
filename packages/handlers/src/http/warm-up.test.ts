import { describe, expect, it } from 'vitest';
import { warmHttpClient } from './warm-up';

describe('warmHttpClient', () => {
  it('gets an answer to every request from its own loopback server, then closes it', async () => {
    expect(await warmHttpClient(25)).toBe(25);
    // Nothing of it is left listening or connected: a second warm-up starts from scratch.
    expect(await warmHttpClient(1)).toBe(1);
  });
});
