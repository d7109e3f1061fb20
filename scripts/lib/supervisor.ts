// Runs a few long-lived child processes as one: when any of them dies the rest are stopped,
// Ctrl-C or SIGTERM stops them all, and `onStopped` (e.g. stopping the embedded database)
// runs once every child has exited. Used by `npm run dev`.
import { type ChildProcess, spawn } from 'node:child_process';

export interface Supervisor {
  start(name: string, command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }): ChildProcess;
  stop(code: number): Promise<void>;
}

export interface SupervisorOptions {
  say(message: string): void;
  onStopped(): Promise<void>;
  /** how long a child may take to exit after SIGTERM before it is killed */
  killAfterMs?: number;
}

export function supervise(options: SupervisorOptions): Supervisor {
  const children = new Map<string, ChildProcess>();
  let stopping: Promise<void> | null = null;

  const stop = (code: number): Promise<void> => {
    stopping ??= (async () => {
      options.say('stopping ...');
      await Promise.all([...children.values()].map((child) => exitOf(child, options.killAfterMs ?? 40_000)));
      await options.onStopped();
      options.say('stopped');
      process.exit(code);
    })();
    return stopping;
  };

  // Ctrl-C reaches every process of the terminal's group at once: the children stop on
  // their own, and this process waits for them before it releases what they used.
  process.on('SIGINT', () => void stop(0));
  process.on('SIGTERM', () => void stop(0));

  return {
    start(name, command, args, { cwd, env }) {
      const child = spawn(command, args, { cwd, env, stdio: 'inherit' });
      child.on('exit', (code, signal) => {
        if (stopping) return;
        const interrupted = signal === 'SIGINT' || signal === 'SIGTERM' || code === 130;
        if (!interrupted) options.say(`${name} exited (${signal ?? `code ${code}`}); stopping everything`);
        void stop(interrupted ? 0 : 1);
      });
      children.set(name, child);
      return child;
    },
    stop,
  };
}

function exitOf(child: ChildProcess, killAfterMs: number): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
    setTimeout(() => child.kill('SIGKILL'), killAfterMs).unref();
  });
}
