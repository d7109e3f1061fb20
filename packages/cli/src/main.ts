// Entry point of `npx belfry` (started by bin/belfry.mjs): builds the real context from the
// process (environment, stdio, clock) and exits with the code `run` decides.
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline/promises';
import type { Context } from './context';
import { readCliEnv } from './env';
import { renderError } from './errors';
import { run } from './program';

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version?: string };
  return pkg.version ?? '0.0.0';
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

async function confirm(question: string): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await rl.question(`${question} [y/N] `)).trim());
  } finally {
    rl.close();
  }
}

async function main(): Promise<number> {
  let env: Context['env'];
  try {
    env = readCliEnv();
  } catch (err) {
    const { lines, exitCode } = renderError(err);
    process.stderr.write(`${lines.join('\n')}\n`);
    return exitCode;
  }
  const ctx: Context = {
    env,
    io: {
      out: (s) => process.stdout.write(s),
      err: (s) => process.stderr.write(s),
      readStdin,
      interactive: Boolean(process.stdin.isTTY && process.stderr.isTTY),
      confirm,
    },
    now: () => new Date(),
    version: version(),
    onInterrupt(handler) {
      const listeners = (['SIGINT', 'SIGTERM'] as const).map((signal) => {
        const listener = () => handler(signal);
        process.on(signal, listener);
        return [signal, listener] as const;
      });
      return () => {
        for (const [signal, listener] of listeners) process.off(signal, listener);
      };
    },
    // biome-ignore lint/style/noProcessEnv: not configuration — the environment `belfry worker` hands on to the commands it starts
    processEnv: process.env,
  };
  return run(process.argv.slice(2), ctx);
}

// Exit explicitly: the admin command's database clients may keep timers alive after closing.
main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
