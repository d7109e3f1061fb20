// The embedded PostgreSQL used when DATABASE_URL is unset. The first process to need it
// initialises `.belfry/pg` and starts the server in its own process group (so a Ctrl-C aimed
// at Belfry's processes does not kill the database under them before they shut down);
// later processes find it running and share it. The owner stops it on exit. A server left
// behind by an owner that was killed with SIGKILL is adopted by the next process. An owner
// that asks for it (keepRunning: `npm start`, `npm run dev`, an engine node on its own) also
// starts the server again when it dies under it. Binaries and initdb: embedded-binaries.ts;
// the server process: embedded-server.ts; its data directory and lock: embedded-home.ts.
import { Backoff } from '@belfry/core';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  binariesIn,
  DEFAULT_OUTSIDE_ROOT,
  initDataDir,
  packagedBinaries,
  reachableBinaries,
} from './embedded-binaries';
import { prepareDataDir, withLock } from './embedded-home';
import {
  canConnect,
  embeddedUrl,
  ensureDatabase,
  isAlive,
  PASSWORD,
  portIsFree,
  postmasterPid,
  postmasterPort,
  startServer,
  stopPostmaster,
  USER,
} from './embedded-server';
import { StartupError } from './startup-error';

export { embeddedUrl };

export interface EmbeddedServer {
  url: string;
  port: number;
  /** true when this process started or adopted the server and must stop it */
  owned: boolean;
  /**
   * Keeps an owned server running until stop(): checks every `everyMs` whether its postmaster
   * is alive and, once it is found gone at two checks in a row (so that a `pg_ctl restart`,
   * which starts a new one at once, is left alone), starts it again — crash recovery replays
   * its WAL — retrying with a growing delay (up to 30 s) while that fails. Does nothing for a
   * server this process only shares. The watch ends with stop().
   */
  keepRunning(options?: { everyMs?: number; log?: (message: string) => void }): void;
  stop(): Promise<void>;
}

export interface EmbeddedOptions {
  home: string;
  port: number;
  database?: string;
  log?: (message: string) => void;
  /** the directory with the binaries' bin/, lib/, share/ (default: the npm platform package) */
  binaries?: string;
  /** where binaries and data go when the postgres user cannot reach them (default /var/lib/belfry) */
  outsideRoot?: string;
}

export async function ensureEmbeddedPostgres(options: EmbeddedOptions): Promise<EmbeddedServer> {
  const { home, port } = options;
  const database = options.database ?? 'belfry';
  const log = options.log ?? ((m: string) => process.stderr.write(`${m}\n`));
  mkdirSync(home, { recursive: true });
  const outsideRoot = options.outsideRoot ?? DEFAULT_OUTSIDE_ROOT;
  const dataDir = prepareDataDir(home, outsideRoot);
  const ownerFile = join(home, 'pg-owner.json');

  const lockFile = join(home, 'pg.lock');
  /** the live process the owner file names, other than this one (null: none) */
  const otherOwner = (): number | null => {
    try {
      const { pid } = JSON.parse(readFileSync(ownerFile, 'utf8')) as { pid: number };
      return isAlive(pid) && pid !== process.pid ? pid : null;
    } catch {
      return null;
    }
  };
  // Starts the server from this process (the caller holds the lock): a postmaster.pid whose
  // process is gone removed first. A new data directory is initialised only on a first start:
  // a restart that finds its data gone says so rather than starting an empty cluster.
  const startHere = async ({ init, owner }: { init: boolean; owner: number }): Promise<void> => {
    const source = options.binaries ? binariesIn(options.binaries) : await packagedBinaries();
    const binaries = reachableBinaries(source, { outsideRoot, log });
    if (!existsSync(join(dataDir, 'PG_VERSION'))) {
      if (!init) throw new Error(`its data directory ${dataDir} is gone`);
      log(`Initialising embedded PostgreSQL in ${dataDir} ...`);
      await initDataDir(binaries, dataDir, { user: USER, password: PASSWORD });
    }
    const stalePid = postmasterPid(dataDir);
    if (stalePid !== null && !isAlive(stalePid)) rmSync(join(dataDir, 'postmaster.pid'), { force: true });
    const pid = await startServer(home, dataDir, port, binaries.postgres);
    writeFileSync(ownerFile, JSON.stringify({ pid: owner, postmaster: pid }));
  };

  const owned = await withLock(lockFile, async () => {
    if (await canConnect(port)) {
      const pmPort = postmasterPort(dataDir);
      if (pmPort !== port) {
        throw new StartupError(
          `Port ${port} is taken by a PostgreSQL server that is not Belfry's embedded one (${dataDir}). ` +
            'Set BELFRY_PG_PORT to a free port, or DATABASE_URL to use that server.',
        );
      }
      if (otherOwner() !== null) return false;
      // Orphaned (its owner was killed): adopt it so that it is stopped when we exit.
      writeFileSync(ownerFile, JSON.stringify({ pid: process.pid, postmaster: postmasterPid(dataDir) }));
      return true;
    }
    if (!(await portIsFree(port))) {
      throw new StartupError(
        `Port ${port} (BELFRY_PG_PORT) is in use by another program: set BELFRY_PG_PORT to a free port, or DATABASE_URL to use an existing PostgreSQL.`,
      );
    }
    // Down while its owner lives (its watch starts it again, or it is an owner that does not
    // watch): started here, but it stays the owner's to stop, so that a short-lived process
    // (`belfry admin ...`) does not take it down with it.
    const owner = otherOwner();
    await startHere({ init: true, owner: owner ?? process.pid });
    return owner === null;
  });

  await ensureDatabase(port, database);

  let stopped = false;
  let watch: NodeJS.Timeout | undefined;
  let restarting: Promise<void> | undefined;
  const running = () => {
    try {
      const pid = postmasterPid(dataDir);
      return pid !== null && isAlive(pid);
    } catch {
      return true; // postmaster.pid was being removed or written (pg_ctl): look again next time
    }
  };
  return {
    url: embeddedUrl(port, database),
    port,
    owned,
    keepRunning({ everyMs = 1_000, log: say = log } = {}) {
      if (!owned || stopped || watch) return;
      let downChecks = 0;
      // one watcher per server, nothing to spread out: the whole delay (1, 2, 4 ... 30 s)
      const restarts = new Backoff({ initialMs: 1_000, maxMs: 30_000, random: () => 1 });
      let retryAt = 0;
      const check = async () => {
        if (running()) {
          // (also after a start that gave up while recovery was still replaying, or one by
          // another process: the next death is reported and retried afresh)
          if (restarts.streak) say(`embedded PostgreSQL on port ${port} is running again`);
          downChecks = 0;
          restarts.succeed();
          retryAt = 0;
          return;
        }
        if (++downChecks < 2 || Date.now() < retryAt) return;
        if (!restarts.streak) say(`embedded PostgreSQL on port ${port} is not running; starting it again ...`);
        restarting = withLock(lockFile, async () => {
          if (stopped || running()) return;
          // Another program on the port would answer the start's connection check itself.
          if (!(await portIsFree(port))) throw new Error(`port ${port} is in use by another program`);
          await startHere({ init: false, owner: process.pid });
          // stopped while it started: stop() waits for this, but stop it here all the same
          if (stopped) {
            const pid = postmasterPid(dataDir);
            if (pid !== null) await stopPostmaster(pid);
          }
        });
        try {
          await restarting;
          if (!stopped) say(`embedded PostgreSQL on port ${port} is running again`);
          restarts.succeed();
          downChecks = 0;
        } catch (err) {
          const delayMs = restarts.fail();
          retryAt = Date.now() + delayMs;
          // the first failure and then the 2nd, 4th, 8th ...: one line each
          const failures = restarts.streak;
          if ((failures & (failures - 1)) === 0) {
            const why = ((err as Error)?.message ?? String(err)).split('\n')[0];
            say(`could not start the embedded PostgreSQL again (${why}); trying again in ${delayMs / 1000} s`);
          }
        } finally {
          restarting = undefined;
        }
      };
      let checking = false;
      watch = setInterval(() => {
        if (checking || stopped) return;
        checking = true;
        void check()
          .catch((err: Error) => say(`watching the embedded PostgreSQL failed: ${err.message}`))
          .finally(() => {
            checking = false;
          });
      }, everyMs);
      watch.unref();
    },
    async stop() {
      if (!owned || stopped) return;
      stopped = true;
      clearInterval(watch);
      await restarting?.catch(() => {});
      const pid = postmasterPid(dataDir);
      if (pid !== null) await stopPostmaster(pid);
      rmSync(ownerFile, { force: true });
    },
  };
}
