import { Keyring } from '@belfry/core';
import { describe, expect, it } from 'vitest';
import { issueLeaseToken, readLeaseToken } from './lease-tokens';

const lease = {
  runId: 'run_01KB3Y8J2Q7Z9V4N6M5X0C1R2T',
  scheduledTime: new Date('2026-12-01T07:00:00Z'),
  attempt: 2,
  worker: 'box:1',
  tenantId: 'ten_1',
};

describe('lease tokens', () => {
  it('name the lease they were issued for', () => {
    const ring = Keyring.from('lease-token-key-material');
    expect(readLeaseToken(ring, issueLeaseToken(ring, lease))).toEqual(lease);
  });

  it('refuse tampering, another deployment’s key and garbage', () => {
    const ring = Keyring.from('lease-token-key-material');
    const token = issueLeaseToken(ring, lease);
    const [body, sig] = token.split('.') as [string, string];
    const forged = Buffer.from(JSON.stringify([lease.runId, lease.scheduledTime.getTime(), 3, 'box:1', 'ten_1']));
    expect(readLeaseToken(ring, `${forged.toString('base64url')}.${sig}`)).toBeNull();
    expect(readLeaseToken(Keyring.from('another-key-material-xyz'), token)).toBeNull();
    for (const bad of ['', '.', 'abc', `${body}.`, `${body}.AAAA`]) expect(readLeaseToken(ring, bad), bad).toBeNull();
  });

  it('still verify after the key is rotated (the old key kept for decryption)', () => {
    const before = Keyring.from('lease-token-key-material');
    const token = issueLeaseToken(before, lease);
    const after = Keyring.from('rotated-lease-token-key', ['lease-token-key-material']);
    expect(readLeaseToken(after, token)).toEqual(lease);
  });
});
