// The one logger of every Belfry process (web, engine): pino, JSON lines on stdout, one list of
// fields that never reach the output (credentials, signing secrets, API keys, cookies), and
// child loggers that carry the ids a line is about (tenantId, jobId, runId, nodeId).
import pino from 'pino';

export type Log = pino.Logger;

export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

const SECRET_FIELDS = [
  'secret',
  'secrets',
  'signingSecret',
  'signingSecrets',
  'apiKey',
  'api_key',
  'password',
  'token',
  'authorization',
  'cookie',
  'encryptionKey',
  // a revealed target holds write-only fields (docs/api.md, "Write-only secrets in targets"):
  // never in a log line
  'target',
];

/**
 * Where secrets may sit in a log line: as a field of the line, of an object logged in it, or
 * among the request headers logged with it. One list for every process.
 */
export const REDACT_PATHS: readonly string[] = [
  ...SECRET_FIELDS,
  ...SECRET_FIELDS.map((f) => `*.${f}`),
  ...['authorization', 'cookie', 'x-api-key', 'webhook-signature'].flatMap((h) => [
    `headers["${h}"]`,
    `*.headers["${h}"]`,
  ]),
];

export interface LoggerOptions {
  level: LogLevel | string;
  /** fields on every line: the service, the node id */
  base: Record<string, unknown>;
  /** where lines go (default stdout); tests pass a stream to read them */
  destination?: pino.DestinationStream;
}

/**
 * An error as a line carries it: pino's own serializer (type, message, stack, cause, the error's
 * own fields such as a PostgreSQL error's code), less the live objects some libraries hang on
 * their errors — pg-boss's and pg's errors carry the whole database `client` (its connection
 * parameters, sockets and type tables: kilobytes of a line, at every lost connection). Plain data
 * (strings, numbers, plain objects, arrays) and errors stay.
 */
export function serializeError(err: unknown): unknown {
  if (!(err instanceof Error)) return err;
  const out = pino.stdSerializers.err(err) as unknown as Record<string, unknown>;
  for (const [key, value] of Object.entries(out)) if (isLiveObject(value)) delete out[key];
  return out;
}

function isLiveObject(value: unknown): boolean {
  if (value === null || typeof value !== 'object' || Array.isArray(value) || value instanceof Error) return false;
  const proto = Object.getPrototypeOf(value);
  return proto !== Object.prototype && proto !== null && !(value instanceof Date);
}

export function createLogger(options: LoggerOptions): Log {
  const config: pino.LoggerOptions = {
    level: options.level,
    base: options.base,
    redact: { paths: [...REDACT_PATHS], censor: '[redacted]' },
    serializers: { err: serializeError },
  };
  return options.destination ? pino(config, options.destination) : pino(config);
}

/** The ids a line can be about; only those that are set (not undefined, null or '') are added. */
export interface LogIds {
  tenantId?: string | null | undefined;
  jobId?: string | null | undefined;
  runId?: string | null | undefined;
  requestId?: string | null | undefined;
  userId?: string | null | undefined;
}

/**
 * A logger as the domain services take it: pino's, or anything with these three methods
 * (console, the web app's adapter, a test's recorder).
 */
export interface LineLogger {
  info(obj: object | string, msg?: string): void;
  warn(obj: object | string, msg?: string): void;
  error(obj: object | string, msg?: string): void;
}

/**
 * A child logger whose every line carries the given ids: pino's own child, or, for a logger
 * without one, a wrapper that adds the ids to each line's fields (a line's own fields win).
 */
export function withIds(log: Log, ids: LogIds): Log;
export function withIds(log: LineLogger, ids: LogIds): LineLogger;
export function withIds(log: Log | LineLogger, ids: LogIds): Log | LineLogger {
  const fields = Object.fromEntries(Object.entries(ids).filter(([, v]) => v !== undefined && v !== null && v !== ''));
  if (!Object.keys(fields).length) return log;
  if ('child' in log && typeof log.child === 'function') return log.child(fields);
  const line =
    (level: keyof LineLogger) =>
    (obj: object | string, msg?: string): void => {
      if (typeof obj === 'string') log[level]({ ...fields }, obj);
      else log[level]({ ...fields, ...obj }, msg);
    };
  return { info: line('info'), warn: line('warn'), error: line('error') };
}

/**
 * How a loop that fails at every round while what it needs is away (the database restarting)
 * reports it: the first failure in full (with the error's stack, at `level`), then only the 2nd,
 * 4th, 8th … failure of the streak, one short line each ("<what> failed again", the error's
 * message and the count), and one line when a round works again. A loop running every second
 * through a one-minute outage writes 7 lines, not 60. For errors from a source that never says
 * it works again (pg-boss's error events), `quietMs` ends a streak after that long without one.
 */
export class FailureStreak {
  private failures = 0;
  private lastFailureAt = 0;

  constructor(
    private readonly log: LineLogger,
    private readonly what: string,
    private readonly level: 'error' | 'warn' = 'error',
    private readonly options: { quietMs?: number; now?: () => number } = {},
  ) {}

  /** Reports a failed round; answers how many rounds in a row have failed. */
  failed(err: unknown, fields: object = {}): number {
    const now = (this.options.now ?? Date.now)();
    if (this.options.quietMs !== undefined && now - this.lastFailureAt > this.options.quietMs) this.failures = 0;
    this.lastFailureAt = now;
    this.failures += 1;
    const n = this.failures;
    if (n === 1) this.log[this.level]({ ...fields, err }, `${this.what} failed`);
    else if ((n & (n - 1)) === 0)
      this.log.warn(
        { ...fields, err: err instanceof Error ? err.message : String(err), failures: n },
        `${this.what} failed again`,
      );
    return n;
  }

  /** A round worked: ends the streak (one line if there was one). */
  succeeded(): void {
    if (this.failures) this.log.info({ failures: this.failures }, `${this.what} works again`);
    this.failures = 0;
  }
}
