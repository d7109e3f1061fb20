// The web app's logger: Belfry's one logger (@belfry/log — pino, JSON lines on stdout, one
// redaction list), made on first use at the level the environment sets. It is the Logger the
// domain services and the REST handler take; their lines carry tenantId, jobId and runId.
import type { Logger } from '@belfry/api';
import { createLogger, type Log } from '@belfry/log';
import { webEnv } from './env';

let instance: Log | undefined;

function pino(): Log {
  instance ??= createLogger({ level: webEnv().BELFRY_LOG_LEVEL, base: { service: 'web' } });
  return instance;
}

function adapt(get: () => Log): Logger {
  const write = (level: 'info' | 'warn' | 'error') => (obj: object | string, msg?: string) => {
    const l = get();
    if (typeof obj === 'string') l[level](obj);
    else l[level](obj, msg);
  };
  return { info: write('info'), warn: write('warn'), error: write('error') };
}

export const log: Logger = adapt(pino);
