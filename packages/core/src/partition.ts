// Maps a job id to one of N scheduler partitions. The result is stored, so the function
// is frozen: changing any step below silently moves every job to another partition.
//
// Algorithm (do not change):
//   1. UTF-8 encode the id (lone surrogates become U+FFFD, as TextEncoder does).
//   2. FNV-1a 32-bit: h = 0x811c9dc5; for each byte: h ^= byte; h = (h * 0x01000193) mod 2^32.
//   3. MurmurHash3 fmix32 finaliser: h ^= h>>>16; h *= 0x85ebca6b; h ^= h>>>13;
//      h *= 0xc2b2ae35; h ^= h>>>16 (multiplications mod 2^32).
//   4. partition = h mod partitions.
//
// Why: FNV-1a is fast, tiny and easy to reimplement (e.g. in SQL or another language),
// but its output bits are poorly mixed: ids differing only in trailing characters (ULIDs
// created in the same millisecond, sequential names) cluster measurably. The fmix32
// finaliser fixes the avalanche at the cost of five integer operations. A cryptographic
// hash would also work but is ~10x slower and needs no extra strength here.

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;
const encoder = new TextEncoder();

function hash32(value: string): number {
  let h = FNV_OFFSET;
  for (const byte of encoder.encode(value)) {
    h ^= byte;
    h = Math.imul(h, FNV_PRIME);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** The partition in [0, partitions) that owns `jobId`. Stable forever; see header. */
export function partitionOf(jobId: string, partitions: number): number {
  if (typeof jobId !== 'string') throw new TypeError('jobId must be a string');
  // Above 2^32 some partitions could never be hit, which is a configuration mistake.
  if (!Number.isInteger(partitions) || partitions < 1 || partitions > 2 ** 32) {
    throw new RangeError(`partitions must be an integer in 1..2^32, got ${partitions}`);
  }
  return hash32(jobId) % partitions;
}
