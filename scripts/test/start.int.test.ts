// `npm start` as a whole, with its real children: the web app, an engine node and the
// embedded PostgreSQL, in a BELFRY_HOME of its own on free ports. An engine killed with -9
// comes back, and so does the embedded PostgreSQL (the engine riding that out); SIGTERM (docker stop, systemd) stops everything, leaving no process behind; a
// stop asked for while starting stops what was started; a failed start says why in one
// sentence.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';
import { findRepoRoot } from '@belfry/db';
import { childEnv } from '../../test/env';

const root = findRepoRoot();
const homes: string[] = [];
const children: ChildProcess[] = [];

afterAll(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  for (const h of homes) rmSync(h, { recursive: true, force: true });
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

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

interface Started {
  child: ChildProcess;
  home: string;
  pgPort: number;
  port: number;
  lines: string[];
  stderr: string[];
  waitFor(pattern: RegExp, timeoutMs?: number, after?: number): Promise<RegExpExecArray>;
  exited: Promise<number | null>;
}

/** Runs scripts/start.ts (what `npm start` execs) in a home of its own. */
async function start(env: Record<string, string> = {}): Promise<Started> {
  const home = mkdtempSync(join(tmpdir(), 'belfry-start-'));
  homes.push(home);
  const pgPort = await freePort();
  const port = await freePort();
  const child = spawn(join(root, 'node_modules/.bin/node'), ['--import', 'tsx', 'scripts/start.ts'], {
    cwd: root,
    env: childEnv({
      DATABASE_URL: '',
      BELFRY_DIRECT_DATABASE_URL: '',
      BELFRY_HOME: home,
      BELFRY_PG_PORT: String(pgPort),
      PORT: String(port),
      BELFRY_METRICS_PORT: '0',
      BELFRY_ROLES: 'scheduler,worker',
      ...env,
    }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  const lines: string[] = [];
  const stderr: string[] = [];
  const waiters = new Set<() => void>();
  createInterface({ input: child.stdout! }).on('line', (line) => {
    lines.push(line);
    for (const w of waiters) w();
  });
  createInterface({ input: child.stderr! }).on('line', (line) => stderr.push(line));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    home,
    pgPort,
    port,
    lines,
    stderr,
    exited,
    waitFor(pattern, timeoutMs = 60_000, after = 0) {
      return new Promise((resolve, reject) => {
        const check = () => {
          for (const line of lines.slice(after)) {
            const m = pattern.exec(line);
            if (m) {
              waiters.delete(check);
              clearTimeout(timer);
              resolve(m);
              return;
            }
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(
            new Error(
              `no line matching ${pattern} within ${timeoutMs} ms:\n${lines.slice(-30).join('\n')}\n${stderr.join('\n')}`,
            ),
          );
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
  };
}

async function healthy(port: number, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const status = await fetch(`http://127.0.0.1:${port}/api/v1/healthz`)
      .then((r) => r.status)
      .catch(() => 0);
    if (status === 200) return;
    if (Date.now() > deadline) throw new Error(`healthz never answered 200 on port ${port}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function portOpen(port: number): Promise<boolean> {
  const { connect } = await import('node:net');
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

describe('npm start', () => {
  it('restarts an engine and the embedded PostgreSQL killed with -9; SIGTERM stops web, engine and the database', async () => {
    const s = await start();
    // The first start in a checkout builds the dashboard.
    const engine = Number((await s.waitFor(/^\[belfry\] engine started \(pid (\d+)\)$/, 400_000))[1]);
    const web = Number((await s.waitFor(/^\[belfry\] web started \(pid (\d+)\)$/))[1]);
    await s.waitFor(/"msg":"engine node started"/);
    await healthy(s.port);
    const postmaster = Number(readFileSync(join(s.home, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]);
    expect(isAlive(postmaster)).toBe(true);

    const mark = s.lines.length;
    process.kill(engine, 'SIGKILL');
    await s.waitFor(
      /^\[belfry\] engine exited unexpectedly \(killed by SIGKILL\) after [\d.]+ s; restarting in/,
      30_000,
      mark,
    );
    const again = Number((await s.waitFor(/^\[belfry\] engine started \(pid (\d+)\)$/, 30_000, mark))[1]);
    expect(again).not.toBe(engine);
    await s.waitFor(/"msg":"engine node started"/, 60_000, mark);
    await healthy(s.port);

    // The database dies under them: started again on its data; the engine is the same process.
    const beforeDb = s.lines.length;
    process.kill(postmaster, 'SIGKILL');
    await s.waitFor(
      new RegExp(`^\\[belfry\\] embedded PostgreSQL on port ${s.pgPort} is not running; starting it again \\.\\.\\.$`),
      30_000,
      beforeDb,
    );
    await s.waitFor(
      new RegExp(`^\\[belfry\\] embedded PostgreSQL on port ${s.pgPort} is running again$`),
      90_000,
      beforeDb,
    );
    const restarted = Number(readFileSync(join(s.home, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]);
    expect(restarted).not.toBe(postmaster);
    await healthy(s.port);
    expect(isAlive(again), 'the engine rode the restart out').toBe(true);

    s.child.kill('SIGTERM');
    expect(await s.exited).toBe(0);
    expect(s.lines).toContain('[belfry] stopped');
    for (const pid of [again, web, restarted]) expect(isAlive(pid), `pid ${pid}`).toBe(false);
    expect(await portOpen(s.pgPort)).toBe(false);
    expect(await portOpen(s.port)).toBe(false);
    expect(s.stderr.filter((l) => /^\s+at /.test(l))).toEqual([]);
  }, 600_000);

  it('a stop asked for while it starts stops the embedded PostgreSQL it started', async () => {
    const s = await start();
    await s.waitFor(/^\[belfry\] embedded PostgreSQL on 127\.0\.0\.1:\d+/);
    const postmaster = Number(readFileSync(join(s.home, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]);
    s.child.kill('SIGTERM');
    expect(await s.exited).toBe(0);
    expect(isAlive(postmaster)).toBe(false);
    expect(await portOpen(s.pgPort)).toBe(false);
  }, 120_000);

  it('a start that cannot work stops at once with one sentence and exit code 1', async () => {
    const s = await start({ DATABASE_URL: 'postgresql://belfry@127.0.0.1:1/belfry' });
    expect(await s.exited).toBe(1);
    expect(s.stderr).toEqual([
      '[belfry] failed to start: Cannot connect to PostgreSQL at 127.0.0.1:1 (database belfry): connection refused. Is it running, and is DATABASE_URL right?',
    ]);
  });
});
