// Keeps `npm start`'s children (the web app, the engine node) running: a child that exits
// when nobody asked it to is restarted after a backoff with jitter, and the cause (exit code
// or signal) is said. A child that keeps failing soon after it starts is a crash loop: after
// `maxFastFailures` such exits in a row the supervisor gives up (and `npm start` stops
// everything) rather than restart it forever. A child that exits with code 2 refused its
// configuration: restarting cannot help, so that gives up at once. Code 3 says the database
// was unavailable (down, restarting, failing over): that is waited out, however long it lasts,
// with the same backoff, and is not counted as a crash.
//
// Each child is the leader of its own process group, so stopping it also stops whatever it
// started itself; stop() sends SIGTERM to every group, SIGKILL after a timeout.
import { type ChildProcess, spawn } from 'node:child_process';
import { EventEmitter } from 'node:events';

export interface ChildSpec {
  name: string;
  command: string;
  args: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
}

export interface SupervisorOptions {
  /** the first restart waits about this long (with jitter); each fast failure doubles it */
  initialBackoffMs: number;
  maxBackoffMs: number;
  /** a child that ran at least this long was healthy: its failure count starts over */
  healthyAfterMs: number;
  /** consecutive fast failures after which a child is given up */
  maxFastFailures: number;
  /** how long children may take to stop after SIGTERM before they are killed */
  stopTimeoutMs: number;
  say: (message: string) => void;
  random: () => number;
}

export const DEFAULT_SUPERVISOR_OPTIONS: Omit<SupervisorOptions, 'say'> = {
  initialBackoffMs: 1_000,
  maxBackoffMs: 30_000,
  healthyAfterMs: 60_000,
  maxFastFailures: 5,
  stopTimeoutMs: 40_000,
  random: Math.random,
};

/** Exit code a Belfry process uses for "my configuration is invalid". */
export const CONFIG_ERROR_EXIT_CODE = 2;
/** Exit code a Belfry process uses for "the database is unavailable" (@belfry/db). */
export const DATABASE_UNAVAILABLE_EXIT_CODE = 3;

interface Supervised {
  spec: ChildSpec;
  child: ChildProcess | null;
  startedAt: number;
  fastFailures: number;
  /** consecutive exits because the database was unavailable */
  waits: number;
  restartTimer: NodeJS.Timeout | null;
  exited: Promise<void>;
}

export function describeExit(code: number | null, signal: NodeJS.Signals | null): string {
  return signal ? `killed by ${signal}` : `exit code ${code}`;
}

function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // the group is gone already
  }
}

export class Supervisor extends EventEmitter<{
  started: [name: string, pid: number];
  exited: [name: string, code: number | null, signal: NodeJS.Signals | null];
  'give-up': [name: string, reason: string];
}> {
  private readonly children = new Map<string, Supervised>();
  private stopping = false;
  private readonly options: SupervisorOptions;

  constructor(options: Partial<SupervisorOptions> & Pick<SupervisorOptions, 'say'>) {
    super();
    this.options = { ...DEFAULT_SUPERVISOR_OPTIONS, ...options };
  }

  /** Starts a child and keeps it running until stop(). */
  add(spec: ChildSpec): void {
    const entry: Supervised = {
      spec,
      child: null,
      startedAt: 0,
      fastFailures: 0,
      waits: 0,
      restartTimer: null,
      exited: Promise.resolve(),
    };
    this.children.set(spec.name, entry);
    this.launch(entry);
  }

  /** The pid of a running child (for tests and logs). */
  pid(name: string): number | undefined {
    return this.children.get(name)?.child?.pid;
  }

  private launch(entry: Supervised): void {
    if (this.stopping) return;
    const { spec } = entry;
    const child = spawn(spec.command, spec.args, {
      cwd: spec.cwd,
      env: spec.env,
      stdio: 'inherit',
      detached: true, // its own process group: stop() reaches whatever it starts
    });
    entry.child = child;
    entry.startedAt = Date.now();
    entry.exited = new Promise((resolve) => {
      // 'error' (it could not be spawned at all) comes instead of, or before, 'exit'.
      child.once('error', (err) => {
        this.options.say(`${spec.name} could not be started: ${err.message}`);
        if (child.pid === undefined) {
          this.onExit(entry, child, null, null, err);
          resolve();
        }
      });
      child.once('exit', (code, signal) => {
        this.onExit(entry, child, code, signal);
        resolve();
      });
    });
    if (child.pid !== undefined) {
      this.options.say(`${spec.name} started (pid ${child.pid})`);
      this.emit('started', spec.name, child.pid);
    }
  }

  private onExit(
    entry: Supervised,
    child: ChildProcess,
    code: number | null,
    signal: NodeJS.Signals | null,
    spawnError?: Error,
  ): void {
    if (entry.child !== child) return;
    entry.child = null;
    // Whatever the leader left behind in its group goes with it.
    if (child.pid !== undefined && groupAlive(child.pid)) signalGroup(child.pid, 'SIGKILL');
    this.emit('exited', entry.spec.name, code, signal);
    if (this.stopping) return;
    const { name } = entry.spec;
    const ranMs = Date.now() - entry.startedAt;
    const cause = spawnError ? `could not be started (${spawnError.message})` : describeExit(code, signal);
    if (code === CONFIG_ERROR_EXIT_CODE) {
      this.giveUp(name, `${name} refused its configuration (${cause}); fix it as its message above says`);
      return;
    }
    if (code === DATABASE_UNAVAILABLE_EXIT_CODE) {
      entry.waits += 1;
      this.scheduleRestart(entry, entry.waits, `${name} cannot reach the database (${cause})`, ranMs);
      return;
    }
    entry.waits = 0;
    entry.fastFailures = ranMs < this.options.healthyAfterMs ? entry.fastFailures + 1 : 1;
    if (entry.fastFailures >= this.options.maxFastFailures) {
      this.giveUp(
        name,
        `${name} failed ${entry.fastFailures} times in a row, each within ${Math.round(this.options.healthyAfterMs / 1000)} s of starting (last: ${cause}); giving up — its output above says why`,
      );
      return;
    }
    this.scheduleRestart(entry, entry.fastFailures, `${name} exited unexpectedly (${cause})`, ranMs);
  }

  /** Restarts after a backoff that doubles with `failures` (capped), with jitter. */
  private scheduleRestart(entry: Supervised, failures: number, what: string, ranMs: number): void {
    const exponent = Math.min(failures - 1, 30);
    const cap = Math.min(this.options.maxBackoffMs, this.options.initialBackoffMs * 2 ** exponent);
    const delay = Math.round(cap / 2 + (this.options.random() * cap) / 2);
    this.options.say(`${what} after ${(ranMs / 1000).toFixed(1)} s; restarting in ${(delay / 1000).toFixed(1)} s`);
    entry.restartTimer = setTimeout(() => {
      entry.restartTimer = null;
      this.launch(entry);
    }, delay);
  }

  private giveUp(name: string, reason: string): void {
    this.options.say(reason);
    this.emit('give-up', name, reason);
  }

  /** SIGTERM to every child (its whole group), SIGKILL to those still there after the timeout. */
  async stop(): Promise<void> {
    this.stopping = true;
    const waits: Promise<void>[] = [];
    for (const entry of this.children.values()) {
      if (entry.restartTimer) clearTimeout(entry.restartTimer);
      entry.restartTimer = null;
      const child = entry.child;
      if (!child?.pid) continue;
      const pid = child.pid;
      signalGroup(pid, 'SIGTERM');
      const killer = setTimeout(() => {
        this.options.say(`${entry.spec.name} did not stop within ${this.options.stopTimeoutMs / 1000} s; killing it`);
        signalGroup(pid, 'SIGKILL');
      }, this.options.stopTimeoutMs);
      waits.push(entry.exited.finally(() => clearTimeout(killer)));
    }
    await Promise.all(waits);
  }
}
