// The CLI's error types and how each becomes a message on stderr and an exit code:
// 2 for usage (bad flags, missing arguments), 1 for everything else (the API said no, the
// server is unreachable, a file is unreadable). The API's own errors come from @belfry/client.
import { ApiError, BelfryError } from '@belfry/client';

export { ApiError, NetworkError } from '@belfry/client';

/** The command line itself is wrong: exit 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** A user-facing failure that is not a usage error: exit 1. */
export class CliError extends Error {
  override readonly name = 'CliError';
}

/**
 * An API error from a request a command built out of flags: the hints map body fields to those
 * flags, so a validation error can name the flag the user typed.
 */
export class HintedApiError extends Error {
  override readonly name = 'HintedApiError';
  constructor(
    readonly error: ApiError,
    readonly hints: FieldHints,
  ) {
    super(error.message);
  }
}

/** Rethrows an ApiError with the command's field hints; anything else unchanged. */
export function withHints(hints: FieldHints): (err: unknown) => never {
  return (err) => {
    throw err instanceof ApiError ? new HintedApiError(err, hints) : err;
  };
}

export interface RenderedError {
  lines: string[];
  exitCode: number;
}

/** Maps request-body field paths to the `jobs create` flag that sets them, for hints. */
export type FieldHints = Record<string, string>;

export function renderError(err: unknown): RenderedError {
  if (err instanceof UsageError) return { lines: [`error: ${err.message}`], exitCode: 2 };
  if (err instanceof HintedApiError) return { lines: renderApiError(err.error, err.hints), exitCode: 1 };
  if (err instanceof ApiError) return { lines: renderApiError(err, {}), exitCode: 1 };
  // NetworkError (no answer) and UnexpectedResponseError (not a Belfry server)
  if (err instanceof CliError || err instanceof BelfryError) return { lines: [`error: ${err.message}`], exitCode: 1 };
  const message = err instanceof Error ? (err.stack ?? err.message) : String(err);
  return { lines: [`error: unexpected failure: ${message}`], exitCode: 1 };
}

function renderApiError(err: ApiError, hints: FieldHints): string[] {
  const { problem, status } = err;
  const detail = problem.detail || problem.title || `HTTP ${status}`;
  if (status === 401) {
    return [
      `error: ${detail}`,
      'The API key was not accepted. Run `belfry login --url <url> --token <api key>` with a valid key.',
    ];
  }
  const errors = problem.errors ?? [];
  const plain = (e: { path: string; message: string }) => `${e.path ? `${e.path}: ` : ''}${e.message}`;
  const text = (e: { path: string; message: string }) => {
    const hint = hintFor(e.path, hints);
    return `${plain(e)}${hint ? ` (${hint})` : ''}`;
  };
  // The API's detail usually repeats the first field error; say each thing once.
  const [first] = errors;
  const repeated = first !== undefined && detail === plain(first);
  const lines: string[] = [];
  if (first && repeated && errors.length === 1) lines.push(`error: ${text(first)}`);
  else {
    lines.push(repeated ? `error: ${problem.title || 'invalid request'}:` : `error: ${detail}`);
    for (const e of errors) lines.push(`  ${text(e)}`);
  }
  if (status === 429 && err.retryAfterSeconds !== null) lines.push(`  retry after ${err.retryAfterSeconds} s`);
  return lines;
}

function hintFor(path: string, hints: FieldHints): string | undefined {
  for (let p = path; p; p = p.includes('.') ? p.slice(0, p.lastIndexOf('.')) : '') {
    const hint = hints[p];
    if (hint) return hint;
  }
  return undefined;
}
