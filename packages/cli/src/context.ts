// What every command is given: the environment, where output goes, the clock, and how to
// reach the network. main.ts builds the real one; unit tests build one in memory.
import type { CliEnv } from './env';

export interface Io {
  out(text: string): void;
  err(text: string): void;
  /** all of stdin, for `--file -`, `--payload-file -` and `--token -` */
  readStdin(): Promise<string>;
  /** true when a person can answer a question (stdin and stderr are terminals) */
  interactive: boolean;
  /** asks a yes/no question; only called when interactive */
  confirm(question: string): Promise<boolean>;
}

export interface Context {
  env: CliEnv;
  io: Io;
  now(): Date;
  fetch?: typeof fetch;
  version: string;
  /** calls `handler` on Ctrl-C (SIGINT) and SIGTERM until the returned function is called */
  onInterrupt?(handler: (signal: 'SIGINT' | 'SIGTERM') => void): () => void;
  /** the environment a command the CLI starts inherits (`belfry worker`) */
  processEnv?: NodeJS.ProcessEnv;
}
