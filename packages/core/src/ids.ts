// Identifiers: `${prefix}_${ULID}`. The ULID's 48-bit millisecond timestamp makes ids
// sort by creation time and lets a run id carry its scheduled time, which is the run
// table's partition key, so a run can be located from its id alone (see idTime).
// 80 bits of CSPRNG randomness make ids unguessable and collision-free in practice.
// Ids created in the same millisecond are not ordered among themselves (no monotonic
// counter): nothing relies on sub-millisecond order, and a counter would be process state.
import { randomBytes } from 'node:crypto';

/** Prefixes in use. Add new ones here so each entity's ids stay recognisable in logs. */
export const ID_PREFIXES = ['job', 'run', 'ten', 'usr', 'key', 'att', 'inv', 'ach', 'inc', 'ntf'] as const;
export type IdPrefix = (typeof ID_PREFIXES)[number];

// Crockford base32: no I, L, O, U, so ids survive being read aloud or retyped.
const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const DECODE: Record<string, number> = Object.fromEntries([...ALPHABET].map((c, i) => [c, i]));
const TIME_CHARS = 10;
const MAX_TIME = 2 ** 48 - 1; // 10889-08-02T05:31:50.655Z
// First char is at most 7: 10 base32 chars hold 50 bits, the timestamp only 48.
const ULID_PATTERN = '[0-7][0-9A-HJKMNP-TV-Z]{25}';
const ID_RE = new RegExp(`^([a-z]+)_(${ULID_PATTERN})$`);

function isKnownPrefix(prefix: unknown): prefix is IdPrefix {
  return (ID_PREFIXES as readonly unknown[]).includes(prefix);
}

function encodeTime(ms: number): string {
  let out = '';
  let t = ms;
  for (let i = 0; i < TIME_CHARS; i++) {
    out = ALPHABET[t % 32]! + out;
    t = Math.floor(t / 32); // not >>>: the value exceeds 32 bits
  }
  return out;
}

// Randomness is drawn from the CSPRNG a few thousand bytes at a time (as crypto.randomUUID
// does): a call per id costs more than the rest of newId, and a batch of jobs takes 1,000 ids.
const RANDOM_BYTES = 10;
const POOL_IDS = 512;
let pool = Buffer.alloc(0);
let poolAt = 0;

/** The next 10 random bytes' 80 bits as two 40-bit numbers (exact in a double). */
function encodeRandom(): string {
  if (poolAt + RANDOM_BYTES > pool.length) {
    pool = randomBytes(RANDOM_BYTES * POOL_IDS);
    poolAt = 0;
  }
  const at = poolAt;
  poolAt += RANDOM_BYTES;
  // The 80 bits, most significant first, are 16 five-bit groups: 8 in each 40-bit half.
  return encode40(pool.readUIntBE(at, 5)) + encode40(pool.readUIntBE(at + 5, 5));
}

function encode40(n: number): string {
  let out = '';
  let v = n;
  for (let i = 0; i < 8; i++) {
    out = ALPHABET[v % 32]! + out;
    v = Math.floor(v / 32);
  }
  return out;
}

/**
 * A new id for `prefix`, timestamped with `time` (default now). Run ids pass the run's
 * scheduled time so the id encodes the partition key. Throws for times a 48-bit
 * unsigned millisecond timestamp can't hold (before 1970 or after the year 10889)
 * rather than wrapping into an id that decodes to a different time.
 */
export function newId(prefix: IdPrefix, time: Date = new Date()): string {
  if (!isKnownPrefix(prefix)) throw new TypeError(`unknown id prefix: ${JSON.stringify(prefix)}`);
  const ms = time instanceof Date ? time.getTime() : Number.NaN;
  if (!Number.isInteger(ms) || ms < 0 || ms > MAX_TIME) {
    throw new RangeError(`id time must be between 1970-01-01 and 10889-08-02, got ${String(time)}`);
  }
  return `${prefix}_${encodeTime(ms)}${encodeRandom()}`;
}

/** The timestamp encoded in an id, or null if `id` is not a well-formed id. */
export function idTime(id: string): Date | null {
  if (typeof id !== 'string') return null;
  const m = ID_RE.exec(id);
  if (!m || !isKnownPrefix(m[1])) return null;
  let ms = 0;
  for (const c of m[2]!.slice(0, TIME_CHARS)) ms = ms * 32 + DECODE[c]!;
  return new Date(ms);
}

/**
 * Whether `value` is a well-formed id with this prefix. Strict (uppercase canonical
 * alphabet only) because ids are compared as strings: accepting Crockford's lenient
 * spellings ("o" for 0) would let two strings name one row.
 */
export function isId(prefix: IdPrefix, value: unknown): value is string {
  if (typeof value !== 'string') return false;
  const m = ID_RE.exec(value);
  return m !== null && m[1] === prefix;
}
