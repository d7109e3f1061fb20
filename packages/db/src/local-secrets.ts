// Secrets a single-machine install needs but a new user has not configured (the encryption
// key for secrets at rest, the session secret): generated once into .belfry/ with mode 0600.
// Production sets them in the environment, where they win, so every node agrees.
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { belfryHome } from './paths';

export function localSecret(name: string, fromEnv: string | undefined, home: string = belfryHome()): string {
  if (fromEnv) return fromEnv;
  const file = join(/* turbopackIgnore: true */ home, `${name}.secret`);
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(home, { recursive: true });
  const value = randomBytes(32).toString('base64');
  try {
    writeFileSync(file, `${value}\n`, { mode: 0o600, flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    return readFileSync(file, 'utf8').trim(); // another process created it first
  }
  chmodSync(file, 0o600);
  return value;
}
