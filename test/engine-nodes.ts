// Starts engine nodes as real child processes (as in production) for integration tests, and
// lets tests wait for what a node logs instead of sleeping.
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { findRepoRoot } from '@belfry/db';

export interface EngineLogLine {
  level: number;
  msg?: string;
  [key: string]: unknown;
}

export interface EngineNode {
  nodeId: string;
  process: ChildProcess;
  logs: EngineLogLine[];
  /** what the process wrote to stderr (crashes, startup failures) */
  stderr: string[];
  waitForLog(predicate: (line: EngineLogLine) => boolean, timeoutMs?: number): Promise<EngineLogLine>;
  /** SIGTERM and wait for exit */
  stop(timeoutMs?: number): Promise<number | null>;
  /** send a signal without waiting (SIGKILL, SIGSTOP, SIGCONT) */
  signal(sig: NodeJS.Signals): void;
  exited: Promise<number | null>;
}

export interface StartEngineOptions {
  databaseUrl: string;
  nodeId: string;
  roles?: string;
  env?: Record<string, string>;
}

export function startEngineNode(options: StartEngineOptions): Promise<EngineNode> {
  const root = findRepoRoot();
  // node with tsx's loader, not the tsx CLI: the CLI runs the program in a child process, and
  // signals sent to it (SIGKILL, SIGSTOP) would not reach the engine.
  const child = spawn(
    join(root, 'node_modules/.bin/node'),
    ['--import', 'tsx', join(root, 'apps/engine/src/main.ts')],
    {
      cwd: root,
      env: {
        ...process.env,
        DATABASE_URL: options.databaseUrl,
        BELFRY_NODE_ID: options.nodeId,
        BELFRY_ROLES: options.roles ?? 'scheduler,worker',
        BELFRY_METRICS_PORT: '0',
        BELFRY_ALLOW_PRIVATE_TARGETS: '1',
        BELFRY_LOG_LEVEL: 'debug',
        ...options.env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const logs: EngineLogLine[] = [];
  const waiters = new Set<{ predicate: (l: EngineLogLine) => boolean; resolve: (l: EngineLogLine) => void }>();
  const stderr: string[] = [];
  createInterface({ input: child.stdout! }).on('line', (raw) => {
    let line: EngineLogLine;
    try {
      line = JSON.parse(raw) as EngineLogLine;
    } catch {
      line = { level: 30, msg: raw };
    }
    logs.push(line);
    for (const w of waiters) {
      if (w.predicate(line)) {
        waiters.delete(w);
        w.resolve(line);
      }
    }
  });
  createInterface({ input: child.stderr! }).on('line', (l) => stderr.push(l));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));

  const node: EngineNode = {
    nodeId: options.nodeId,
    process: child,
    logs,
    stderr,
    exited,
    waitForLog(predicate, timeoutMs = 30_000) {
      const found = logs.find(predicate);
      if (found) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const waiter = { predicate, resolve };
        waiters.add(waiter);
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          reject(
            new Error(
              `node ${options.nodeId}: no matching log within ${timeoutMs} ms; stderr:\n${stderr.slice(-20).join('\n')}`,
            ),
          );
        }, timeoutMs);
        void exited.then(() => {
          if (!waiters.has(waiter)) return;
          clearTimeout(timer);
          waiters.delete(waiter);
          reject(new Error(`node ${options.nodeId} exited; stderr:\n${stderr.slice(-20).join('\n')}`));
        });
        const original = waiter.resolve;
        waiter.resolve = (l) => {
          clearTimeout(timer);
          original(l);
        };
      });
    },
    async stop(timeoutMs = 30_000) {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill('SIGCONT');
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
    signal(sig) {
      child.kill(sig);
    },
  };
  return node.waitForLog((l) => l.msg === 'engine node started', 60_000).then(() => node);
}
