// `npm run engine`: one engine node. Resolves the database (DATABASE_URL or the shared
// embedded server), applies migrations if needed, then runs the roles it was given until
// SIGINT/SIGTERM, when it drains and releases what it holds.
import {
  DATABASE_UNAVAILABLE_EXIT_CODE,
  explainStartupError,
  isDatabaseUnavailable,
  readDbEnv,
  StartupError,
} from '@belfry/db';
import { readEngineEnv } from './env';
import { createLogger } from './logger';
import { startEngine } from './engine';

async function main(): Promise<void> {
  let env: ReturnType<typeof readEngineEnv>;
  try {
    env = readEngineEnv();
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n`);
    process.exit(2);
  }
  const log = createLogger(env.logLevel, { nodeId: env.nodeId, service: 'engine' });
  const engine = await startEngine(env, log);

  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    // Keeps the process alive while stopping (some libraries wait on unref'd timers) and bounds
    // how long a stuck shutdown may take.
    setTimeout(() => {
      log.error('shutdown took too long; exiting');
      process.exit(1);
    }, env.shutdownGraceMs + 30_000);
    engine
      .stop()
      .then(() => process.exit(0))
      .catch((err) => {
        log.error({ err }, 'unclean shutdown');
        process.exit(1);
      });
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
}

main().catch((err) => {
  // What an operator can fix is said in one sentence; anything else is a bug worth its stack.
  let url: string | undefined;
  try {
    url = readDbEnv().DATABASE_URL;
  } catch {}
  const sentence = explainStartupError(err, url);
  const known = err instanceof StartupError || sentence !== (err as Error)?.message;
  const detail = known || !(err instanceof Error) ? '' : `\n${err.stack ?? ''}`;
  process.stderr.write(`engine failed to start: ${sentence}${detail}\n`);
  // A supervisor (npm start, systemd) retries an unavailable database for as long as it lasts.
  process.exit(isDatabaseUnavailable(err) ? DATABASE_UNAVAILABLE_EXIT_CODE : 1);
});
