// Where the embedded PostgreSQL's data lives (`.belfry/pg`, or a directory the postgres user
// can reach when running as root) and the cross-process lock held while deciding who starts it.
import { createHash } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  closeSync,
  existsSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { postgresIds, traversableByOthers } from './embedded-binaries';
import { isAlive, sleep } from './embedded-server';

/** A cross-process lock on a file, held while deciding who starts the server. */
export async function withLock<T>(file: string, fn: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    try {
      const fd = openSync(file, 'wx');
      writeFileSync(fd, String(process.pid));
      closeSync(fd);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const holder = Number.parseInt(readFileSync(file, 'utf8') || '0', 10);
      if (!isAlive(holder)) {
        rmSync(file, { force: true });
        continue;
      }
      if (Date.now() > deadline) throw new Error(`Timed out waiting for ${file} (held by pid ${holder})`);
      await sleep(100);
    }
  }
  try {
    return await fn();
  } finally {
    rmSync(file, { force: true });
  }
}

/**
 * As root, PostgreSQL runs as the `postgres` user, which must reach the data directory. When
 * the checkout sits somewhere it cannot walk into (a 0700 home), the data lives under
 * /var/lib/belfry instead and `.belfry/pg` links to it.
 */
export function prepareDataDir(home: string, outsideRoot: string): string {
  const dataDir = join(home, 'pg');
  const ids = postgresIds();
  if (!ids) return dataDir;
  chmodSync(home, 0o755);
  if (existsSync(dataDir)) return realpathSync(dataDir);
  if (traversableByOthers(home)) return dataDir;
  const outside = join(outsideRoot, createHash('sha256').update(resolve(home)).digest('hex').slice(0, 16));
  mkdirSync(dirname(outside), { recursive: true, mode: 0o755 });
  chmodSync(dirname(outside), 0o755);
  mkdirSync(outside, { recursive: true, mode: 0o700 });
  chownSync(outside, ids.uid, ids.gid);
  let linked = false;
  try {
    linked = lstatSync(dataDir).isSymbolicLink();
  } catch {
    // no link yet
  }
  if (!linked) symlinkSync(outside, dataDir);
  return outside;
}
