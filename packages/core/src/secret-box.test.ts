import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { deriveEncryptionKey, openSecret, sealSecret } from './secret-box';

describe('secret box', () => {
  const key = randomBytes(32);

  it('round-trips and never stores the plaintext', () => {
    const sealed = sealSecret(key, 'whsec_abc');
    expect(sealed.includes(Buffer.from('whsec_abc'))).toBe(false);
    expect(openSecret(key, sealed)).toBe('whsec_abc');
  });

  it('uses a fresh IV each time', () => {
    expect(sealSecret(key, 'x').equals(sealSecret(key, 'x'))).toBe(false);
  });

  it('rejects a wrong key and tampered data', () => {
    const sealed = sealSecret(key, 'secret');
    expect(() => openSecret(randomBytes(32), sealed)).toThrow();
    const tampered = Buffer.from(sealed);
    tampered[tampered.length - 1] = (tampered[tampered.length - 1] ?? 0) ^ 1;
    expect(() => openSecret(key, tampered)).toThrow();
    expect(() => openSecret(key, Buffer.from([9, 1, 2]))).toThrow(/unknown format/);
  });

  it('accepts a base64 key or derives one from a passphrase', () => {
    const b64 = randomBytes(32).toString('base64');
    expect(deriveEncryptionKey(b64).toString('base64')).toBe(b64);
    expect(deriveEncryptionKey('correct horse')).toHaveLength(32);
    expect(deriveEncryptionKey('correct horse').equals(deriveEncryptionKey('correct horse'))).toBe(true);
  });
});
