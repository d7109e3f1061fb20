// Structured JSON logs (pino); secrets and keys never reach the output.
import pino from 'pino';

export type Log = pino.Logger;

export function createLogger(level: string, base: Record<string, unknown>): Log {
  return pino({
    level,
    base,
    redact: {
      paths: [
        'secret',
        'secrets',
        '*.secret',
        'apiKey',
        '*.apiKey',
        'headers.authorization',
        '*.headers.authorization',
        // a revealed target holds write-only fields (CONTRACT.md §6): never in a log line
        'target',
        '*.target',
      ],
      censor: '[redacted]',
    },
  });
}
