// The engine's logger: Belfry's one logger (@belfry/log — pino, one redaction list), with the
// node id on every line; run-scoped lines come from child loggers with runId, jobId, tenantId.
import { createLogger as createBelfryLogger, type Log } from '@belfry/log';

export type { Log };

export function createLogger(level: string, base: Record<string, unknown>): Log {
  return createBelfryLogger({ level, base });
}
