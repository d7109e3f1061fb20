// The CLI's error types and how each becomes a message on stderr and an exit code:
// 2 for usage (bad flags, missing arguments), 1 for everything else (the API said no, the
// server is unreachable, a file is unreadable).
import type { Problem } from './types';

/** The command line itself is wrong: exit 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** A user-facing failure that is not a usage error: exit 1. */
export class CliError extends Error {
  override readonly name = 'CliError';
}

/** The API answered with an error status; `problem` is its problem+json body (or a stand-in). */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  /** set by the command that built the request, so validation errors can name its flags */
  hints: FieldHints = {};
  constructor(
    readonly status: number,
    readonly problem: Problem,
    readonly retryAfterSeconds: number | null = null,
  ) {
    super(problem.detail || problem.title || `HTTP ${status}`);
  }
}

/** The request never got an HTTP answer (refused, DNS, timeout, TLS). */
export class NetworkError extends Error {
  override readonly name = 'NetworkError';
}

export interface RenderedError {
  lines: string[];
  exitCode: number;
}

/** Maps request-body field paths to the `jobs create` flag that sets them, for hints. */
export type FieldHints = Record<string, string>;

export function renderError(err: unknown): RenderedError {
  if (err instanceof UsageError) return { lines: [`error: ${err.message}`], exitCode: 2 };
  if (err instanceof CliError || err instanceof NetworkError) return { lines: [`error: ${err.message}`], exitCode: 1 };
  if (err instanceof ApiError) return { lines: renderApiError(err), exitCode: 1 };
  const message = err instanceof Error ? (err.stack ?? err.message) : String(err);
  return { lines: [`error: unexpected failure: ${message}`], exitCode: 1 };
}

function renderApiError(err: ApiError): string[] {
  const { problem, status, hints } = err;
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
