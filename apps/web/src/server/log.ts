// The web app's logger: JSON lines on stdout, with credentials redacted. Matches the Logger
// interface the domain services take, so services log the same way in web and engine.
import type { Logger } from '@belfry/api';
import { webEnv } from './env';

const LEVELS = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60, silent: Number.POSITIVE_INFINITY };
const SECRET_KEYS = /^(authorization|apikey|api_key|key|token|secret|password|cookie)$/i;

function serialise(obj: object | string): Record<string, unknown> {
  if (typeof obj === 'string') return { msg: obj };
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) {
    if (SECRET_KEYS.test(k)) out[k] = '[redacted]';
    else if (v instanceof Error)
      out[k] = { type: v.name, message: v.message, stack: v.stack, code: (v as { code?: unknown }).code };
    else out[k] = v;
  }
  return out;
}

function write(level: keyof typeof LEVELS, obj: object | string, msg?: string): void {
  if (LEVELS[level] < LEVELS[webEnv().BELFRY_LOG_LEVEL]) return;
  const line = {
    level: LEVELS[level],
    time: Date.now(),
    name: 'belfry-web',
    ...serialise(obj),
    ...(msg ? { msg } : {}),
  };
  process.stdout.write(`${JSON.stringify(line)}\n`);
}

export const log: Logger = {
  info: (obj, msg) => write('info', obj, msg),
  warn: (obj, msg) => write('warn', obj, msg),
  error: (obj, msg) => write('error', obj, msg),
};
