// The last bytes of a command's output (stdout and stderr as they came), for a run's
// `output`: at most 4 KiB of UTF-8 that PostgreSQL can store.
export const OUTPUT_TAIL_BYTES = 4096;

export class OutputTail {
  private chunks: Buffer[] = [];
  private size = 0;

  constructor(private readonly limit = OUTPUT_TAIL_BYTES) {}

  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
    // Keep a little more than the limit: the text is cut to whole characters at the end.
    while (this.chunks.length > 1 && this.size - (this.chunks[0] as Buffer).length >= this.limit + 4) {
      this.size -= (this.chunks.shift() as Buffer).length;
    }
  }

  /** The tail as text: whole characters, no NULs, at most `limit` bytes. */
  text(): string {
    const all = Buffer.concat(this.chunks);
    let start = Math.max(0, all.length - this.limit);
    // Skip UTF-8 continuation bytes: start at a character boundary.
    while (start < all.length && ((all[start] as number) & 0xc0) === 0x80) start++;
    // NUL cannot be stored in PostgreSQL text.
    let text = all.subarray(start).toString('utf8').replaceAll('\u0000', '');
    while (Buffer.byteLength(text, 'utf8') > this.limit) text = text.slice(1);
    return text;
  }
}
