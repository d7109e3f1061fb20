// Startup failures an operator can fix, said in one sentence instead of a stack trace: bad
// configuration (StartupError, thrown with the sentence), and the ways connecting to
// PostgreSQL fails (explainStartupError turns the driver's error into what to do).

/** A failure whose message already says what is wrong and what to do; print it, not a stack. */
export class StartupError extends Error {
  override name = 'StartupError';
}

interface ErrorLike {
  code?: unknown;
  message?: unknown;
  address?: unknown;
  port?: unknown;
  hostname?: unknown;
  errors?: unknown[];
  syscall?: unknown;
  path?: unknown;
}

function where(url: string | undefined): string {
  if (!url) return 'PostgreSQL';
  try {
    const u = new URL(url);
    return `PostgreSQL at ${u.hostname}:${u.port || '5432'}${u.pathname.length > 1 ? ` (database ${u.pathname.slice(1)})` : ''}`;
  } catch {
    return 'PostgreSQL';
  }
}

/**
 * What went wrong, for a person: one sentence when the error is one of the known ways a start
 * fails (the database unreachable or refusing us, a port in use, a binary that cannot run),
 * otherwise the error's own message. `url` names the server that was being reached.
 */
export function explainStartupError(err: unknown, url?: string, variable = 'DATABASE_URL'): string {
  if (err instanceof StartupError) return err.message;
  const e = (err ?? {}) as ErrorLike;
  const inner = (Array.isArray(e.errors) ? (e.errors[0] as ErrorLike | undefined) : undefined) ?? {};
  const code = String(e.code ?? inner.code ?? '');
  const message = String(e.message ?? err ?? 'unknown error');
  const server = where(url);
  switch (code) {
    case 'ECONNREFUSED':
      return `Cannot connect to ${server}: connection refused. Is it running, and is ${variable} right?`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `Cannot connect to ${server}: the host name does not resolve. Check ${variable}.`;
    case 'ETIMEDOUT':
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return `Cannot connect to ${server}: no answer (${code}). Check ${variable} and the network.`;
    case '28P01':
      return `${server} refused the password for the user in ${variable}.`;
    case '28000':
      return `${server} refused the connection (${message}). Check the user in ${variable} and pg_hba.conf.`;
    case '3D000':
      return `${server}: ${message}. Create it, or fix the database name in ${variable}.`;
    case '53300':
      return `${server} has no connection slots left (${message}). Raise max_connections or lower the pool sizes (docs/operations.md).`;
    case '57P03':
      return `${server} is not accepting connections yet (${message}). Try again when it has started.`;
    case '08P01':
      if (/unsupported startup parameter/.test(message)) {
        return `${variable} points at a connection pooler that refused a connection parameter (${message}); see docs/operations.md, PgBouncer.`;
      }
      break;
    case 'EADDRINUSE':
      return `Port ${String(e.port ?? '')} is already in use: stop what holds it, or choose another port.`;
    case 'EACCES':
      if (e.syscall === 'listen')
        return `Not allowed to listen on port ${String(e.port ?? '')}: choose a port above 1023.`;
      if (typeof e.path === 'string') return `Permission denied: ${e.path}.`;
      break;
  }
  if (/timeout expired|connection timeout/i.test(message)) {
    return `Cannot connect to ${server}: no answer within the connect timeout. Check ${variable} and the network.`;
  }
  if (/^Connection terminated/.test(message)) {
    return `${server} closed the connection while Belfry was starting (${message}). Is it restarting?`;
  }
  return message;
}

const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now (starting up, shutting down, in recovery)
  '53300', // too_many_connections
  '08000',
  '08001',
  '08003',
  '08004',
  '08006',
]);

/**
 * Did this fail because the database could not be reached right now (down, restarting, failing
 * over, out of connection slots), rather than because something is misconfigured or broken?
 * A supervisor keeps retrying the former for as long as it lasts.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  const e = (err ?? {}) as ErrorLike;
  const inner = (Array.isArray(e.errors) ? (e.errors[0] as ErrorLike | undefined) : undefined) ?? {};
  const code = String(e.code ?? inner.code ?? '');
  if (UNAVAILABLE_CODES.has(code)) return true;
  return /Connection terminated|timeout expired|connection timeout|timeout exceeded when trying to connect|not queryable/i.test(
    String(e.message ?? ''),
  );
}

const TRANSIENT_CODES = new Set([
  '25P03', // idle_in_transaction_session_timeout ended the session
  '40001', // serialization_failure
  '40P01', // deadlock_detected
  '55P03', // lock_not_available (lock_timeout)
  '57014', // query_canceled
]);

/**
 * Would the same statement likely succeed if tried again later: the database away or
 * restarting, the session ended under it, a lock or serialization conflict? Not so for a
 * constraint violation or a bug in the SQL, which trying again only repeats.
 */
export function isTransientDatabaseError(err: unknown): boolean {
  if (isDatabaseUnavailable(err)) return true;
  return TRANSIENT_CODES.has(String((err as ErrorLike | null)?.code ?? ''));
}

/** Exit code of a Belfry process that could not start because the database is unavailable. */
export const DATABASE_UNAVAILABLE_EXIT_CODE = 3;
