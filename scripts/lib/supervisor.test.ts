// The supervisor with real child processes (small Node programs): restarts with backoff and
// the cause said, gives up on a crash loop and on a configuration error, and stops whole
// process groups (SIGTERM, then SIGKILL for a child that ignores it).
import { afterEach, describe, expect, it } from 'vitest';
import { childEnv, testEnv } from '../../test/env';
import { type ChildSpec, Supervisor } from './supervisor';

const running: Supervisor[] = [];
afterEach(async () => {
  for (const s of running.splice(0)) await s.stop();
});

function node(name: string, program: string): ChildSpec {
  return { name, command: process.execPath, args: ['-e', program], cwd: process.cwd(), env: childEnv() };
}

function supervisor(options: Partial<ConstructorParameters<typeof Supervisor>[0]> = {}) {
  const said: string[] = [];
  const s = new Supervisor({
    say: (m) => said.push(m),
    initialBackoffMs: 40,
    maxBackoffMs: 200,
    random: () => 0.5,
    ...options,
  });
  running.push(s);
  return { s, said };
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const nextEvent = <T extends unknown[]>(s: Supervisor, event: 'started' | 'exited' | 'give-up') =>
  new Promise<T>((resolve) => s.once(event, (...args: unknown[]) => resolve(args as T)));

describe('Supervisor', () => {
  it('restarts a child that was killed, saying how it ended and when it comes back', async () => {
    const { s, said } = supervisor();
    const first = nextEvent<[string, number]>(s, 'started');
    s.add(node('engine', 'setInterval(() => {}, 1000)'));
    const [, pid] = await first;
    const again = nextEvent<[string, number]>(s, 'started');
    process.kill(pid, 'SIGKILL');
    const [, second] = await again;
    expect(second).not.toBe(pid);
    expect(isAlive(second)).toBe(true);
    expect(said.find((m) => m.includes('exited unexpectedly'))).toMatch(
      /^engine exited unexpectedly \(killed by SIGKILL\) after \d+\.\d s; restarting in 0\.0 s$/,
    );
  });

  it('backs off between restarts and gives up on a crash loop with the reason', async () => {
    const { s, said } = supervisor({ maxFastFailures: 4 });
    const gaveUp = nextEvent<[string, string]>(s, 'give-up');
    const starts: number[] = [];
    s.on('started', () => starts.push(Date.now()));
    s.add(node('web', 'process.exit(4)'));
    const [name, reason] = await gaveUp;
    expect(name).toBe('web');
    expect(reason).toMatch(
      /^web failed 4 times in a row, each within 60 s of starting \(last: exit code 4\); giving up/,
    );
    expect(starts).toHaveLength(4);
    // Waits grow: 30, 60, 120 ms (half the cap plus half of it again at random = 0.5).
    const restarts = said.filter((m) => m.includes('restarting in'));
    expect(restarts.map((m) => /restarting in ([\d.]+) s/.exec(m)?.[1])).toEqual(['0.0', '0.1', '0.1']);
    expect(restarts.every((m) => m.includes('(exit code 4)'))).toBe(true);
    for (let i = 1; i < starts.length; i++) expect((starts[i] ?? 0) - (starts[i - 1] ?? 0)).toBeGreaterThanOrEqual(25);
  });

  it('gives up at once on a configuration error (exit code 2): restarting cannot fix it', async () => {
    const { s } = supervisor();
    const gaveUp = nextEvent<[string, string]>(s, 'give-up');
    let starts = 0;
    s.on('started', () => starts++);
    s.add(node('engine', 'process.exit(2)'));
    const [, reason] = await gaveUp;
    expect(reason).toMatch(/^engine refused its configuration \(exit code 2\)/);
    expect(starts).toBe(1);
  });

  it('waits out an unavailable database (exit code 3) however many times, without calling it a crash loop', async () => {
    const { s, said } = supervisor({ maxFastFailures: 2, maxBackoffMs: 80 });
    const counter = `${testEnv.TMPDIR}/belfry-supervisor-db-${process.pid}-${Date.now()}`;
    const up = new Promise<void>((resolve) =>
      s.on('started', () => {
        if (said.filter((m) => m.includes('cannot reach the database')).length === 5) resolve();
      }),
    );
    // Exits 3 five times (the database is "down"), then keeps running.
    s.add(
      node(
        'engine',
        `const fs = require('node:fs'); const f = ${JSON.stringify(counter)};
         const n = fs.existsSync(f) ? Number(fs.readFileSync(f, 'utf8')) : 0; fs.writeFileSync(f, String(n + 1));
         if (n < 5) process.exit(3); setInterval(() => {}, 1000);`,
      ),
    );
    let gaveUp = false;
    s.on('give-up', () => {
      gaveUp = true;
    });
    await up;
    const { readFileSync, rmSync } = await import('node:fs');
    // The sixth run finds the database "up" and stays.
    while (readFileSync(counter, 'utf8') !== '6') await new Promise((r) => setTimeout(r, 20));
    expect(isAlive(s.pid('engine') ?? 0)).toBe(true);
    rmSync(counter);
    expect(gaveUp).toBe(false);
    expect(said.filter((m) => m.includes('cannot reach the database (exit code 3)'))).toHaveLength(5);
    expect(said.some((m) => m.includes('exited unexpectedly'))).toBe(false);
  });

  it('stop() ends each child with what it started, and kills one that ignores SIGTERM', async () => {
    const { s } = supervisor({ stopTimeoutMs: 500 });
    const started = new Map<string, number>();
    s.on('started', (name, pid) => started.set(name, pid));
    // A parent with a child of its own (as `next start` may have), and a stubborn one.
    const grandchildFile = `${testEnv.TMPDIR}/belfry-supervisor-${process.pid}-${Date.now()}`;
    s.add(
      node(
        'parent',
        `process.on('SIGTERM', () => process.exit(0));
         const { spawn } = require('node:child_process'); const fs = require('node:fs');
         const c = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
         fs.writeFileSync(${JSON.stringify(grandchildFile)}, String(c.pid)); setInterval(() => {}, 1000);`,
      ),
    );
    const stubbornReady = `${grandchildFile}-stubborn`;
    s.add(
      node(
        'stubborn',
        `process.on('SIGTERM', () => {}); require('node:fs').writeFileSync(${JSON.stringify(stubbornReady)}, 'ready');
         setInterval(() => {}, 1000);`,
      ),
    );
    const { existsSync, readFileSync, rmSync } = await import('node:fs');
    while (!existsSync(grandchildFile) || !readFileSync(grandchildFile, 'utf8') || !existsSync(stubbornReady)) {
      await new Promise((r) => setTimeout(r, 20));
    }
    rmSync(stubbornReady);
    const grandchild = Number(readFileSync(grandchildFile, 'utf8'));
    rmSync(grandchildFile);
    expect(isAlive(grandchild)).toBe(true);
    const exits: [string, number | null, string | null][] = [];
    s.on('exited', (name, code, signal) => exits.push([name, code, signal]));
    await s.stop();
    expect(exits.sort()).toEqual([
      ['parent', 0, null],
      ['stubborn', null, 'SIGKILL'],
    ]);
    for (const pid of [...started.values(), grandchild]) {
      // The grandchild gets SIGTERM with its group, or SIGKILL once its parent has gone.
      for (let i = 0; i < 100 && isAlive(pid); i++) await new Promise((r) => setTimeout(r, 20));
      expect(isAlive(pid)).toBe(false);
    }
  });
});
