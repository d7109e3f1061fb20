// Authenticated encryption for secrets stored in the database (webhook signing secrets):
// AES-256-GCM, sealed as version(1) | iv(12) | tag(16) | ciphertext.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

const VERSION = 1;

/** Derives a 32-byte key from configured key material (base64 of 32 bytes, or any passphrase). */
export function deriveEncryptionKey(material: string): Buffer {
  const raw = Buffer.from(material, 'base64');
  if (raw.length === 32 && raw.toString('base64') === material) return raw;
  return createHash('sha256').update(`belfry-secret-box:${material}`).digest();
}

export function sealSecret(key: Buffer, plaintext: string): Buffer {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return Buffer.concat([Buffer.from([VERSION]), iv, cipher.getAuthTag(), body]);
}

export function openSecret(key: Buffer, sealed: Uint8Array): string {
  const buf = Buffer.from(sealed);
  if (buf.length < 29 || buf[0] !== VERSION) throw new Error('sealed secret has an unknown format');
  const decipher = createDecipheriv('aes-256-gcm', key, buf.subarray(1, 13));
  decipher.setAuthTag(buf.subarray(13, 29));
  return Buffer.concat([decipher.update(buf.subarray(29)), decipher.final()]).toString('utf8');
}
