// A container's output as an attempt keeps it: stdout and stderr interleaved as Docker
// recorded them, the last 4 KiB, cut on a UTF-8 character boundary, without NUL (which
// PostgreSQL text refuses).

export const OUTPUT_TAIL_BYTES = 4 * 1024;

/**
 * The payload bytes of Docker's multiplexed log stream (a non-TTY container): frames of an
 * 8-byte header (stream, 0, 0, 0, big-endian length) followed by that many bytes.
 */
export function demuxLogs(raw: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  while (at + 8 <= raw.length) {
    const stream = raw[at];
    const length = raw.readUInt32BE(at + 4);
    if (stream === undefined || stream > 2 || raw[at + 1] !== 0 || raw[at + 2] !== 0 || raw[at + 3] !== 0) {
      // Not multiplexed after all (a TTY container): the bytes are the output.
      return raw;
    }
    parts.push(raw.subarray(at + 8, Math.min(raw.length, at + 8 + length)));
    at += 8 + length;
  }
  return Buffer.concat(parts);
}

const isContinuationByte = (b: number | undefined) => b !== undefined && (b & 0xc0) === 0x80;

/** The last `maxBytes` bytes as text, starting on a character boundary; null when empty. */
export function tailText(bytes: Buffer, maxBytes = OUTPUT_TAIL_BYTES): string | null {
  if (bytes.length === 0) return null;
  let start = Math.max(0, bytes.length - maxBytes);
  while (start < bytes.length && start > 0 && isContinuationByte(bytes[start])) start++;
  return bytes.subarray(start).toString('utf8').replaceAll('\u0000', '\uFFFD');
}
