import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { Keyring, parseKeyList, sealLegacySecret } from './secret-box';

const RAW = randomBytes(32).toString('base64');
const OTHER_RAW = randomBytes(32).toString('base64');
const PASSPHRASE = 'correct horse battery staple';
const ctx = { tenantId: 'ten_a', purpose: 'signing-secret' };

describe('secret box keyring', () => {
  it('round-trips with a raw key and with a passphrase', () => {
    for (const material of [RAW, PASSPHRASE]) {
      const ring = Keyring.from(material);
      const sealed = ring.seal('whsec_abc', ctx);
      expect(sealed.includes(Buffer.from('whsec_abc'))).toBe(false);
      expect(ring.open(sealed, ctx)).toBe('whsec_abc');
      // another process with the same material opens it
      expect(Keyring.from(material).open(sealed, ctx)).toBe('whsec_abc');
    }
  });

  it('uses a fresh IV per seal', () => {
    const ring = Keyring.from(RAW);
    expect(ring.seal('x', ctx).equals(ring.seal('x', ctx))).toBe(false);
  });

  it('binds a ciphertext to its tenant and purpose', () => {
    const ring = Keyring.from(PASSPHRASE);
    const sealed = ring.seal('secret', ctx);
    expect(() => ring.open(sealed, { ...ctx, tenantId: 'ten_b' })).toThrow(/another tenant or purpose/);
    expect(() => ring.open(sealed, { ...ctx, purpose: 'target-secret' })).toThrow(/another tenant or purpose/);
  });

  it('refuses a tampered envelope, a wrong key and unknown formats', () => {
    const ring = Keyring.from(RAW);
    const sealed = ring.seal('secret', ctx);
    const tampered = Buffer.from(sealed);
    tampered[tampered.length - 1] = (tampered[tampered.length - 1] ?? 0) ^ 1;
    expect(() => ring.open(tampered, ctx)).toThrow();
    const salted = Buffer.from(sealed);
    salted[8] = (salted[8] ?? 0) ^ 1; // inside the salt, which is authenticated
    expect(() => ring.open(salted, ctx)).toThrow();
    expect(() => Keyring.from(OTHER_RAW).open(sealed, ctx)).toThrow(/not configured/);
    expect(() => ring.open(Buffer.from([9, 1, 2]), ctx)).toThrow(/unknown format/);
  });

  it('names the sealing key, and previous keys still open what they sealed', () => {
    const old = Keyring.from(RAW);
    const sealed = old.seal('secret', ctx);
    expect(old.keyIdOf(sealed)).toBe(old.currentKeyId);
    const rotated = Keyring.from(PASSPHRASE, [RAW]);
    expect(rotated.keyIds).toEqual([rotated.currentKeyId, old.currentKeyId]);
    expect(rotated.isCurrent(sealed)).toBe(false);
    expect(rotated.open(sealed, ctx)).toBe('secret');
    const resealed = rotated.seal(rotated.open(sealed, ctx), ctx);
    expect(rotated.isCurrent(resealed)).toBe(true);
    // once the old key is dropped, only the resealed copy opens
    const only = Keyring.from(PASSPHRASE);
    expect(only.open(resealed, ctx)).toBe('secret');
    expect(() => only.open(sealed, ctx)).toThrow(/not configured/);
  });

  it('key ids differ per key and are stable per key', () => {
    expect(Keyring.from(RAW).currentKeyId).toBe(Keyring.from(RAW).currentKeyId);
    expect(Keyring.from(RAW).currentKeyId).not.toBe(Keyring.from(OTHER_RAW).currentKeyId);
    expect(Keyring.from(PASSPHRASE).currentKeyId).toMatch(/^[0-9a-f]{8}$/);
  });

  it('opens the legacy format with any configured key, which is never current', () => {
    for (const material of [RAW, PASSPHRASE]) {
      const legacy = sealLegacySecret(material, 'whsec_old');
      const ring = Keyring.from(OTHER_RAW, [material]);
      expect(ring.open(legacy, ctx)).toBe('whsec_old');
      expect(ring.isCurrent(legacy)).toBe(false);
      expect(ring.keyIdOf(legacy)).toBeNull();
      expect(() => Keyring.from(OTHER_RAW).open(legacy, ctx)).toThrow(/legacy format/);
    }
  });

  it('refuses short key material and a missing context', () => {
    expect(() => Keyring.from('short')).toThrow(/at least 16/);
    expect(() => Keyring.from(RAW).seal('x', { tenantId: '', purpose: 'p' })).toThrow(/tenant and a purpose/);
  });

  it('parses a comma-separated key list', () => {
    expect(parseKeyList(undefined)).toEqual([]);
    expect(parseKeyList(` ${RAW} ,, ${PASSPHRASE}`)).toEqual([RAW, PASSPHRASE]);
  });
});

describe('Keyring.macKeys', () => {
  it('derives the same MAC key from the same material, another for another purpose or key, current first', () => {
    const a = Keyring.from('material-one-0123456789');
    const again = Keyring.from('material-one-0123456789');
    expect(a.macKeys('p')[0]?.equals(again.macKeys('p')[0] as Buffer)).toBe(true);
    expect(a.macKeys('p')[0]?.equals(a.macKeys('q')[0] as Buffer)).toBe(false);
    const rotated = Keyring.from('material-two-0123456789', ['material-one-0123456789']);
    const keys = rotated.macKeys('p');
    expect(keys).toHaveLength(2);
    expect(keys[1]?.equals(a.macKeys('p')[0] as Buffer)).toBe(true);
    expect(keys[0]?.equals(a.macKeys('p')[0] as Buffer)).toBe(false);
  });
});
