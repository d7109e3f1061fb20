// Authenticated encryption for secrets stored in the database (webhook signing secrets, target
// credentials), with a keyring so the key can be rotated while old ciphertexts still open.
//
// Envelope (version 2): version(1) | key id(4) | salt(16) | iv(12) | tag(16) | ciphertext.
// - The key material is either 32 random bytes (base64) or a passphrase. A passphrase is
//   stretched with scrypt over the envelope's salt; raw keys need no stretching. Either way
//   the AES-256-GCM key of one envelope is an HKDF-SHA256 subkey over that salt, bound to the
//   secret's purpose and tenant.
// - The additional authenticated data is the header plus tenant and purpose, so a ciphertext
//   copied to another tenant's row, or from one kind of secret to another, does not open.
// - The key id names the key that sealed an envelope; the keyring opens it with that key and
//   `belfry admin rotate-encryption-key` re-seals everything not under the current one.
// Version 1 (version(1) | iv(12) | tag(16) | ciphertext, key = raw or one unsalted SHA-256 of
// the passphrase, no AAD) is still opened, so databases written before stay readable until
// they are rotated.
import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createHmac,
  hkdfSync,
  randomBytes,
  scryptSync,
} from 'node:crypto';

const V1 = 1;
const V2 = 2;
const KEY_ID_BYTES = 4;
const SALT_BYTES = 16;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const V2_HEADER = 1 + KEY_ID_BYTES + SALT_BYTES;
const V2_MIN = V2_HEADER + IV_BYTES + TAG_BYTES;
const V1_MIN = 1 + IV_BYTES + TAG_BYTES;

/** scrypt cost for passphrases: 2^15 × 8 × 128 B = 32 MiB and tens of milliseconds per salt. */
const SCRYPT = { N: 2 ** 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 } as const;
const KEY_ID_SALT = 'belfry-secret-box key id';
const MAX_CACHED_SALTS = 256;

/** What a secret is and whose: both must match when it is opened. */
export interface SecretContext {
  tenantId: string;
  /** what kind of secret, e.g. 'signing-secret', 'target-secret' */
  purpose: string;
}

/** True for base64 of exactly 32 bytes (a generated key), false for a passphrase. */
function rawKeyOf(material: string): Buffer | null {
  const raw = Buffer.from(material, 'base64');
  return raw.length === 32 && raw.toString('base64') === material ? raw : null;
}

// Key ids by a hash of their material, so building another keyring in the same process does
// not pay scrypt again.
const keyIds = new Map<string, Buffer>();

function keyIdOf(material: string, raw: Buffer | null): Buffer {
  const cacheKey = createHash('sha256').update(material).digest('hex');
  const hit = keyIds.get(cacheKey);
  if (hit) return hit;
  // A passphrase's id is derived through scrypt too, so the id is no shortcut for guessing it.
  const idBase = raw ?? scryptSync(material, KEY_ID_SALT, 32, SCRYPT);
  const id = createHmac('sha256', idBase).update('belfry-secret-box key id').digest().subarray(0, KEY_ID_BYTES);
  keyIds.set(cacheKey, id);
  return id;
}

/** One key of the ring: its id and how it derives the subkey of an envelope. */
class RingKey {
  readonly id: Buffer;
  /** the version-1 key (kept only to open old envelopes) */
  readonly legacy: Buffer;
  private readonly raw: Buffer | null;
  private readonly passphrase: string | null;
  private readonly stretched = new Map<string, Buffer>();
  private sealingSalt: Buffer | null = null;

  constructor(material: string) {
    if (material.length < 16) throw new Error('an encryption key must be at least 16 characters');
    this.raw = rawKeyOf(material);
    this.passphrase = this.raw ? null : material;
    this.legacy = this.raw ?? createHash('sha256').update(`belfry-secret-box:${material}`).digest();
    this.id = keyIdOf(material, this.raw);
  }

  /** The salt for a new envelope: fresh for raw keys; one per process for passphrases (scrypt is slow). */
  saltForSealing(): Buffer {
    if (this.raw) return randomBytes(SALT_BYTES);
    this.sealingSalt ??= randomBytes(SALT_BYTES);
    return this.sealingSalt;
  }

  subkey(salt: Buffer, context: SecretContext): Buffer {
    const info = Buffer.from(`belfry-secret-box/v2\0${context.purpose}\0${context.tenantId}`, 'utf8');
    return Buffer.from(hkdfSync('sha256', this.inputKey(salt), salt, info, 32));
  }

  /** A MAC key for `purpose`, the same in every process that has this key material. */
  macKey(purpose: string): Buffer {
    const salt = createHash('sha256').update('belfry-mac/v1').digest().subarray(0, SALT_BYTES);
    return Buffer.from(hkdfSync('sha256', this.inputKey(salt), salt, Buffer.from(`belfry-mac/v1\0${purpose}`), 32));
  }

  private inputKey(salt: Buffer): Buffer {
    if (this.raw) return this.raw;
    const cacheKey = salt.toString('hex');
    const hit = this.stretched.get(cacheKey);
    if (hit) return hit;
    const key = scryptSync(this.passphrase as string, salt, 32, SCRYPT);
    if (this.stretched.size >= MAX_CACHED_SALTS) this.stretched.delete(this.stretched.keys().next().value as string);
    this.stretched.set(cacheKey, key);
    return key;
  }
}

function checkContext(context: SecretContext): void {
  if (!context.tenantId || !context.purpose || `${context.tenantId}${context.purpose}`.includes('\0')) {
    throw new Error('a sealed secret needs a tenant and a purpose');
  }
}

function aad(header: Buffer, context: SecretContext): Buffer {
  return Buffer.concat([header, Buffer.from(`\0${context.tenantId}\0${context.purpose}`, 'utf8')]);
}

/** Splits comma-separated key material (BELFRY_DECRYPTION_KEYS) into its keys. */
export function parseKeyList(text: string | undefined): string[] {
  return (text ?? '')
    .split(',')
    .map((k) => k.trim())
    .filter((k) => k !== '');
}

/**
 * The keys secrets are sealed and opened with: the current key seals, every key (current and
 * previous ones) opens. Build one per process; key derivation is deliberately slow for passphrases.
 */
export class Keyring {
  private readonly keys: RingKey[];

  private constructor(keys: RingKey[]) {
    this.keys = keys;
  }

  /** `current` seals and opens; `previous` (older keys, e.g. BELFRY_DECRYPTION_KEYS) only open. */
  static from(current: string, previous: readonly string[] = []): Keyring {
    const materials = [current, ...previous.filter((m) => m !== current)];
    return new Keyring([...new Set(materials)].map((m) => new RingKey(m)));
  }

  private get current(): RingKey {
    return this.keys[0] as RingKey;
  }

  /** The id of the key new secrets are sealed with (hex). */
  get currentKeyId(): string {
    return this.current.id.toString('hex');
  }

  /**
   * MAC keys for `purpose` (e.g. pull-queue lease tokens), current first: MAC with the first,
   * accept any (so tokens issued before a key rotation still verify).
   */
  macKeys(purpose: string): Buffer[] {
    return this.keys.map((k) => k.macKey(purpose));
  }

  /** Every key's id, current first (hex). */
  get keyIds(): string[] {
    return this.keys.map((k) => k.id.toString('hex'));
  }

  seal(plaintext: string, context: SecretContext): Buffer {
    checkContext(context);
    const key = this.current;
    const salt = key.saltForSealing();
    const header = Buffer.concat([Buffer.from([V2]), key.id, salt]);
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', key.subkey(salt, context), iv);
    cipher.setAAD(aad(header, context));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return Buffer.concat([header, iv, cipher.getAuthTag(), body]);
  }

  /** The plaintext; throws when no key of the ring opens it for this tenant and purpose. */
  open(sealed: Uint8Array, context: SecretContext): string {
    checkContext(context);
    const buf = Buffer.from(sealed);
    if (buf[0] === V2 && buf.length >= V2_MIN) return this.openV2(buf, context);
    if (buf[0] === V1 && buf.length >= V1_MIN) return this.openV1(buf);
    throw new Error('sealed secret has an unknown format');
  }

  /** The key id an envelope names (hex), or null for the legacy format. */
  keyIdOf(sealed: Uint8Array): string | null {
    const buf = Buffer.from(sealed);
    return buf[0] === V2 && buf.length >= V2_MIN ? buf.subarray(1, 1 + KEY_ID_BYTES).toString('hex') : null;
  }

  /** Whether an envelope is sealed with the current key in the current format (else: rotate it). */
  isCurrent(sealed: Uint8Array): boolean {
    return this.keyIdOf(sealed) === this.currentKeyId;
  }

  private openV2(buf: Buffer, context: SecretContext): string {
    const id = buf.subarray(1, 1 + KEY_ID_BYTES);
    const salt = buf.subarray(1 + KEY_ID_BYTES, V2_HEADER);
    const iv = buf.subarray(V2_HEADER, V2_HEADER + IV_BYTES);
    const tag = buf.subarray(V2_HEADER + IV_BYTES, V2_MIN);
    const candidates = this.keys.filter((k) => k.id.equals(id));
    if (candidates.length === 0) {
      throw new Error(`sealed secret is under key ${id.toString('hex')}, which is not configured`);
    }
    for (const key of candidates) {
      try {
        const decipher = createDecipheriv('aes-256-gcm', key.subkey(salt, context), iv);
        decipher.setAAD(aad(buf.subarray(0, V2_HEADER), context));
        decipher.setAuthTag(tag);
        return Buffer.concat([decipher.update(buf.subarray(V2_MIN)), decipher.final()]).toString('utf8');
      } catch {
        // another key with the same id (4 bytes may collide), else the tenant or purpose differs
      }
    }
    throw new Error('sealed secret does not open: tampered, or sealed for another tenant or purpose');
  }

  private openV1(buf: Buffer): string {
    for (const key of this.keys) {
      try {
        const decipher = createDecipheriv('aes-256-gcm', key.legacy, buf.subarray(1, 1 + IV_BYTES));
        decipher.setAuthTag(buf.subarray(1 + IV_BYTES, V1_MIN));
        return Buffer.concat([decipher.update(buf.subarray(V1_MIN)), decipher.final()]).toString('utf8');
      } catch {
        // try the next key
      }
    }
    throw new Error('sealed secret (legacy format) does not open with any configured key');
  }
}

/**
 * Seals in the legacy version-1 format. Only for tests and tools that must produce what older
 * releases wrote; everything else seals through a Keyring.
 */
export function sealLegacySecret(material: string, plaintext: string): Buffer {
  const key = rawKeyOf(material) ?? createHash('sha256').update(`belfry-secret-box:${material}`).digest();
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return Buffer.concat([Buffer.from([V1]), iv, cipher.getAuthTag(), body]);
}

/** The purpose tenants' webhook signing secrets are sealed under. */
export const SIGNING_SECRET_PURPOSE = 'signing-secret';
/** The purpose targets' write-only fields (docs/api.md, "Write-only secrets in targets") are sealed under. */
export const TARGET_SECRET_PURPOSE = 'target-secret';
/** An alert channel's configuration (its Slack URL, webhook URL, PagerDuty routing key). */
export const ALERT_CHANNEL_PURPOSE = 'alert-channel';
