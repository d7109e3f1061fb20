// The embedded/external switch: DATABASE_URL wins; without it an embedded PostgreSQL is
// initialised under BELFRY_HOME, shared by later processes, adopted when orphaned, and
// stopped by its owner.
import { spawn, spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmSync,
  statSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { childEnv } from '../../../test/env';
import { afterAll, describe, expect, it } from 'vitest';
import { ensureEmbeddedPostgres, findRepoRoot, packagedBinaries, readDbEnv, resolveDatabase } from '../src/index';

const home = mkdtempSync(join(tmpdir(), 'belfry-embedded-'));
// A port free now (the kernel's pick): a random one in 55000-59999 lies in Linux's ephemeral
// range and was once in use by another program's connection (CI failure: "Port 56042 is in use").
const port = await new Promise<number>((resolve, reject) => {
  const probe = createServer();
  probe.once('error', reject);
  probe.listen(0, '127.0.0.1', () => {
    const { port: free } = probe.address() as { port: number };
    probe.close(() => resolve(free));
  });
});

async function query(url: string, sql: string) {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query(sql)).rows;
  } finally {
    await c.end();
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The pid in the postmaster.pid of the embedded server under `belfryHome`. */
function postmasterOf(belfryHome: string): number {
  return Number(readFileSync(join(belfryHome, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]);
}

/**
 * node's command line for a process that resolves the database from its environment (the
 * target as `t`), then runs `then` (JavaScript).
 */
function resolvingProcess(then: string): [string, string[]] {
  const root = findRepoRoot();
  return [
    join(root, 'node_modules/.bin/node'),
    [
      '--import',
      'tsx',
      '-e',
      `import('${join(root, 'packages/db/src/index.ts')}').then(async (db) => {
         const t = await db.resolveDatabase(db.readDbEnv());
         ${then}
       })`,
    ],
  ];
}

describe('database resolution', () => {
  afterAll(() => rmSync(home, { recursive: true, force: true }));

  it('uses DATABASE_URL when it is set, starting nothing', async () => {
    const env = readDbEnv({ DATABASE_URL: 'postgresql://u:p@127.0.0.1:1/x', BELFRY_HOME: home });
    const target = await resolveDatabase(env);
    expect(target.url).toBe('postgresql://u:p@127.0.0.1:1/x');
    expect(target.embedded).toBeNull();
    expect(existsSync(join(home, 'pg'))).toBe(false);
  });

  it('rejects a malformed DATABASE_URL and port with a clear message', () => {
    expect(() => readDbEnv({ DATABASE_URL: 'mysql://x' })).toThrow(/DATABASE_URL must be a postgres/);
    expect(() => readDbEnv({ BELFRY_PG_PORT: 'abc' })).toThrow(/BELFRY_PG_PORT/);
  });

  it('initialises, shares, and stops the embedded server', async () => {
    const env = readDbEnv({ BELFRY_HOME: home, BELFRY_PG_PORT: String(port) });
    const owner = await resolveDatabase(env);
    try {
      expect(owner.embedded?.owned).toBe(true);
      expect(owner.url).toBe(`postgresql://postgres:postgres@127.0.0.1:${port}/belfry`);
      expect(existsSync(join(home, 'pg', 'PG_VERSION'))).toBe(true);
      const [row] = await query(
        owner.url,
        'SELECT current_database() AS db, current_setting($$listen_addresses$$) AS listen',
      );
      expect(row).toEqual({ db: 'belfry', listen: '127.0.0.1' });

      // Another process finds the running server and shares it without owning it.
      const child = spawnSync(
        ...resolvingProcess(`process.stdout.write(JSON.stringify({ url: t.url, owned: t.embedded.owned }));
           await t.release();`),
        {
          env: childEnv({ DATABASE_URL: '', BELFRY_HOME: home, BELFRY_PG_PORT: String(port) }),
          encoding: 'utf8',
        },
      );
      expect(child.status, child.stderr).toBe(0);
      expect(JSON.parse(child.stdout)).toEqual({ url: owner.url, owned: false });
      // ...and releasing a shared server leaves it running.
      await expect(query(owner.url, 'SELECT 1 AS ok')).resolves.toEqual([{ ok: 1 }]);
    } finally {
      await owner.release();
    }
    expect(existsSync(join(home, 'pg', 'postmaster.pid'))).toBe(false);
    await expect(query(owner.url, 'SELECT 1')).rejects.toThrow();
  });

  it('adopts a server whose owner died, and stops it when done', async () => {
    // A process that starts the server and is then killed without cleaning up.
    const child = spawnSync(...resolvingProcess(`process.kill(process.pid, 'SIGKILL');`), {
      env: childEnv({ DATABASE_URL: '', BELFRY_HOME: home, BELFRY_PG_PORT: String(port) }),
      encoding: 'utf8',
    });
    expect(child.signal).toBe('SIGKILL');
    const postmaster = postmasterOf(home);
    expect(isAlive(postmaster)).toBe(true);

    const adopted = await resolveDatabase(readDbEnv({ BELFRY_HOME: home, BELFRY_PG_PORT: String(port) }));
    expect(adopted.embedded?.owned).toBe(true);
    await adopted.release();
    expect(isAlive(postmaster)).toBe(false);
  });
});

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

describe('a checkout the postgres user cannot reach', () => {
  // As root PostgreSQL runs as `postgres`, which cannot walk into a 0700 directory (a
  // `mktemp -d`, a private home). Both the data and the binaries are then put where it can.
  const outer = mkdtempSync(join(tmpdir(), 'belfry-private-')); // mode 0700
  const outside = mkdtempSync(join(tmpdir(), 'belfry-outside-'));
  afterAll(() => {
    rmSync(outer, { recursive: true, force: true });
    rmSync(outside, { recursive: true, force: true });
  });

  it('starts: binaries and data relocated (as root), or used where they are', async () => {
    expect(statSync(outer).mode & 0o777).toBe(0o700);
    const packaged = await packagedBinaries();
    // The checkout's copy of the binaries, inside the private directory.
    const binaries = join(outer, 'checkout', 'native');
    mkdirSync(join(outer, 'checkout'), { recursive: true });
    cpSync(packaged.root, binaries, { recursive: true, verbatimSymlinks: true });
    const privateHome = join(outer, 'checkout', '.belfry');
    const pgPort = await freePort();
    const server = await ensureEmbeddedPostgres({
      home: privateHome,
      port: pgPort,
      binaries,
      outsideRoot: outside,
      log: () => {},
    });
    try {
      await expect(query(server.url, 'SELECT 1 AS ok')).resolves.toEqual([{ ok: 1 }]);
      const postmaster = postmasterOf(privateHome);
      const executable = readlinkSync(`/proc/${postmaster}/exe`);
      const dataDir = realpathSync(join(privateHome, 'pg'));
      if (process.getuid?.() === 0) {
        expect(executable.startsWith(`${outside}/pg-`)).toBe(true);
        expect(dataDir.startsWith(`${outside}/`)).toBe(true);
        expect(statSync(outside).mode & 0o005).toBe(0o005);
      } else {
        // Not root: PostgreSQL runs as us and reaches everything in place.
        expect(executable).toBe(join(binaries, 'bin', 'postgres'));
        expect(dataDir).toBe(join(privateHome, 'pg'));
      }
    } finally {
      await server.stop();
    }
    // A second start reuses the copy and the data.
    const again = await ensureEmbeddedPostgres({ home: privateHome, port: pgPort, binaries, outsideRoot: outside });
    try {
      await expect(query(again.url, 'SELECT 2 AS ok')).resolves.toEqual([{ ok: 2 }]);
    } finally {
      await again.stop();
    }
  });

  it('stops at once with one sentence when the port is held by something else', async () => {
    const holder = createServer();
    const held = await new Promise<number>((resolve) =>
      holder.listen(0, '127.0.0.1', () => {
        const address = holder.address();
        resolve(typeof address === 'object' && address ? address.port : 0);
      }),
    );
    try {
      await expect(
        ensureEmbeddedPostgres({ home: join(outside, 'other-home'), port: held, outsideRoot: outside }),
      ).rejects.toThrow(
        new RegExp(`^Port ${held} \\(BELFRY_PG_PORT\\) is in use by another program: set BELFRY_PG_PORT`),
      );
    } finally {
      holder.close();
    }
  });
});

describe('an owner that keeps its server running', () => {
  const keepHome = mkdtempSync(join(tmpdir(), 'belfry-keep-'));
  afterAll(() => rmSync(keepHome, { recursive: true, force: true }));

  it('starts the server again when its postmaster is killed, data intact, and leaves it stopped after stop()', async () => {
    const keepPort = await freePort();
    const lines: string[] = [];
    const server = await ensureEmbeddedPostgres({ home: keepHome, port: keepPort, log: (m) => lines.push(m) });
    const pidFile = join(keepHome, 'pg', 'postmaster.pid');
    const postmaster = () => postmasterOf(keepHome);
    let restarted = 0;
    try {
      expect(server.owned).toBe(true);
      await query(server.url, 'CREATE TABLE kept (v int); INSERT INTO kept VALUES (42)');
      server.keepRunning({ everyMs: 100, log: (m) => lines.push(m) });
      const killed = postmaster();
      process.kill(killed, 'SIGKILL');
      const deadline = Date.now() + 90_000;
      while (!lines.includes(`embedded PostgreSQL on port ${keepPort} is running again`)) {
        if (Date.now() > deadline) throw new Error(`not started again; said: ${lines.join(' | ')}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(lines).toContain(`embedded PostgreSQL on port ${keepPort} is not running; starting it again ...`);
      restarted = postmaster();
      expect(restarted).not.toBe(killed);
      expect(isAlive(restarted)).toBe(true);
      // crash recovery kept what was committed
      expect(await query(server.url, 'SELECT v FROM kept')).toEqual([{ v: 42 }]);
    } finally {
      await server.stop();
    }
    expect(isAlive(restarted)).toBe(false);
    // stopped on purpose: the watch is over and does not start it again
    await new Promise((r) => setTimeout(r, 1_000));
    expect(existsSync(pidFile)).toBe(false);
    expect(lines.filter((l) => l.endsWith('is running again'))).toHaveLength(1);
  }, 120_000);

  it('a restart that finds the data directory gone says so, and initialises nothing', async () => {
    const goneHome = mkdtempSync(join(tmpdir(), 'belfry-gone-'));
    const gonePort = await freePort();
    const lines: string[] = [];
    const server = await ensureEmbeddedPostgres({ home: goneHome, port: gonePort, log: (m) => lines.push(m) });
    const versionFile = join(goneHome, 'pg', 'PG_VERSION');
    try {
      server.keepRunning({ everyMs: 100, log: (m) => lines.push(m) });
      process.kill(postmasterOf(goneHome), 'SIGKILL');
      rmSync(versionFile); // as if the data directory had been removed
      const deadline = Date.now() + 30_000;
      while (!lines.some((l) => l.startsWith('could not start the embedded PostgreSQL again'))) {
        if (Date.now() > deadline) throw new Error(`no failure reported; said: ${lines.join(' | ')}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(lines.find((l) => l.startsWith('could not start'))).toMatch(/its data directory .* is gone/);
      expect(existsSync(versionFile)).toBe(false);
      expect(lines.filter((l) => l.startsWith('Initialising'))).toHaveLength(1); // the first start's only
    } finally {
      await server.stop();
      rmSync(goneHome, { recursive: true, force: true });
    }
  }, 60_000);

  it("a process that finds the server down while its owner lives starts it, but leaves it the owner's to stop", async () => {
    const sharedHome = mkdtempSync(join(tmpdir(), 'belfry-shared-'));
    const sharedPort = await freePort();
    // The owner: another process that starts the server and stays (it does not watch it).
    const owner = spawn(
      ...resolvingProcess(`process.stdout.write('started\\n');
         setInterval(() => {}, 1000);`),
      {
        env: childEnv({ DATABASE_URL: '', BELFRY_HOME: sharedHome, BELFRY_PG_PORT: String(sharedPort) }),
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    try {
      await new Promise<void>((resolve, reject) => {
        owner.stdout?.on('data', (d: Buffer) => d.toString().includes('started') && resolve());
        owner.once('exit', (code) => reject(new Error(`owner exited with ${code}`)));
      });
      process.kill(postmasterOf(sharedHome), 'SIGKILL');
      await new Promise((r) => setTimeout(r, 500));
      const meanwhile = await resolveDatabase(
        readDbEnv({ BELFRY_HOME: sharedHome, BELFRY_PG_PORT: String(sharedPort) }),
      );
      expect(meanwhile.embedded?.owned).toBe(false);
      await expect(query(meanwhile.url, 'SELECT 1 AS ok')).resolves.toEqual([{ ok: 1 }]);
      const started = postmasterOf(sharedHome);
      await meanwhile.release(); // not ours: left running
      expect(isAlive(started)).toBe(true);
      expect(JSON.parse(readFileSync(join(sharedHome, 'pg-owner.json'), 'utf8')).pid).toBe(owner.pid);
      // the owner is gone: the next process adopts it and stops it
      owner.kill('SIGKILL');
      await new Promise((r) => owner.once('exit', r));
      const adopted = await resolveDatabase(readDbEnv({ BELFRY_HOME: sharedHome, BELFRY_PG_PORT: String(sharedPort) }));
      expect(adopted.embedded?.owned).toBe(true);
      await adopted.release();
      expect(isAlive(started)).toBe(false);
    } finally {
      if (owner.exitCode === null && owner.signalCode === null) owner.kill('SIGKILL');
      rmSync(sharedHome, { recursive: true, force: true });
    }
  }, 120_000);
});
