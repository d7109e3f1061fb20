// A logger destination that keeps every line written to it, parsed: for tests that assert what
// was logged (createLogger({ destination })).
import { Writable } from 'node:stream';

export function logLines(): { lines: Record<string, unknown>[]; destination: Writable } {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { lines, destination };
}
