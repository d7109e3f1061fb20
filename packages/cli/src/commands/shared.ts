// Helpers every command group uses: the API client from stored credentials, `--json` versus
// human output, argument parsers that turn bad values into usage errors (exit 2), pagination
// and reading files or stdin.
import { readFile } from 'node:fs/promises';
import { type Command, InvalidArgumentError, Option } from 'commander';
import { BelfryClient, type Page } from '@belfry/client';
import { resolveCredentials } from '../config';
import type { Context } from '../context';
import { parseDuration } from '../durations';
import { CliError } from '../errors';
import { json } from '../format';

export const MAX_PAGE_SIZE = 500;

export function clientFor(
  ctx: Context,
  credentials: { url: string; token: string } = resolveCredentials(ctx.env),
): BelfryClient {
  const { url, token } = credentials;
  return new BelfryClient({
    baseUrl: url,
    token,
    userAgent: `belfry-cli/${ctx.version}`,
    ...(ctx.fetch ? { fetch: ctx.fetch } : {}),
  });
}

/** `--json` prints the API's JSON untouched; otherwise the human view. */
export function emit(ctx: Context, asJson: boolean | undefined, value: unknown, human: () => string): void {
  ctx.io.out(`${asJson ? json(value) : human()}\n`);
}

export function jsonOption(): Option {
  return new Option('--json', 'print the API response as JSON');
}

/** commander reports an InvalidArgumentError as a usage error (exit 2) naming the option. */
export function parseWith<T>(fn: (value: string, previous: T) => T): (value: string, previous: T) => T {
  return (value, previous) => {
    try {
      return fn(value, previous);
    } catch (err) {
      throw new InvalidArgumentError((err as Error).message);
    }
  };
}

export function intArg(min: number, max: number) {
  return parseWith<number>((value) => {
    if (!/^\d+$/.test(value.trim()) || Number(value) < min || Number(value) > max) {
      throw new Error(`must be a whole number from ${min} to ${max}`);
    }
    return Number(value);
  });
}

export function durationArg(min: number) {
  return parseWith<number>((value) => {
    const seconds = parseDuration(value);
    if (seconds < min) throw new Error(`must be at least ${min} second${min === 1 ? '' : 's'}`);
    return seconds;
  });
}

/** One of a fixed list; `catch-up` is accepted for `catch_up` because flags are usually dashed. */
export function choiceArg<T extends string>(choices: readonly T[]) {
  return parseWith<T>((value) => {
    const normal = value.trim().toLowerCase().replaceAll('-', '_');
    const match = choices.find((c) => c === normal);
    if (!match) throw new Error(`must be one of ${choices.join(', ')}`);
    return match;
  });
}

export function addPageOptions(cmd: Command): Command {
  return cmd
    .option('--limit <n>', `page size (1-${MAX_PAGE_SIZE}; the server's default is 50)`, intArg(1, MAX_PAGE_SIZE))
    .option('--cursor <cursor>', 'continue from the nextCursor of a previous page')
    .option('--all', 'follow nextCursor to the end and show everything');
}

export interface PageFlags {
  limit?: number;
  cursor?: string;
  all?: boolean;
}

/** One page, or with --all every page joined (answered in the API's own page shape). */
export async function collect<T>(
  flags: PageFlags,
  fetchPage: (q: { limit?: number; cursor?: string }) => Promise<Page<T>>,
): Promise<Page<T>> {
  const first = await fetchPage({
    limit: flags.limit ?? (flags.all ? MAX_PAGE_SIZE : undefined),
    cursor: flags.cursor,
  });
  if (!flags.all) return first;
  const data = [...first.data];
  for (let cursor = first.nextCursor; cursor; ) {
    const page = await fetchPage({ limit: flags.limit ?? MAX_PAGE_SIZE, cursor });
    data.push(...page.data);
    cursor = page.nextCursor;
  }
  return { data, nextCursor: null };
}

/** Tells a person there is more; on stderr so the table on stdout stays clean. */
export function morePages(ctx: Context, page: Page<unknown>, asJson: boolean | undefined): void {
  if (page.nextCursor && !asJson) ctx.io.err(`(more: --cursor ${page.nextCursor}, or --all)\n`);
}

/** A file's text, or stdin for "-". */
export async function readInput(ctx: Context, path: string, flag: string): Promise<string> {
  if (path === '-') return ctx.io.readStdin();
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const reason = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a directory' : (err as Error).message;
    throw new CliError(`${flag} ${path}: ${reason}`);
  }
}

export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}
