// Parsers of `jobs create` flag values that are more than a word: argument lists, CPU limits,
// NAME=value and name:value pairs (repeatable), and JSON from a flag or a file.
import { CliError } from './errors';

/** `--command '["sh","-c","echo hi"]'` (a JSON array of strings) or `--command "report --daily"` (split on spaces). */
export function parseArgs(text: string, flag: string): string[] {
  if (text.trimStart().startsWith('[')) {
    const value = parseJson(text, flag);
    if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) {
      throw new CliError(`${flag} must be a JSON array of strings, or words separated by spaces`);
    }
    return value as string[];
  }
  return text.split(/\s+/).filter(Boolean);
}

/** `--cpus 0.5`: a positive number (the server checks the range). */
export function parseCpus(text: string): number {
  if (!/^\s*\d+(\.\d+)?\s*$/.test(text) || Number(text) <= 0) throw new Error('must be a positive number, e.g. 0.5');
  return Number(text);
}

/** `--env NAME=value`, repeatable; later values replace earlier ones of the same name. */
export function parseEnv(text: string, previous: Record<string, string> | undefined): Record<string, string> {
  const eq = text.indexOf('=');
  if (eq <= 0) throw new Error(`'${text}' is not a variable: use NAME=value, e.g. --env REPORT_KIND=daily`);
  return { ...previous, [text.slice(0, eq)]: text.slice(eq + 1) };
}

/** `--header "x-team: billing"`, repeatable; later values replace earlier ones of the same name. */
export function parseHeader(text: string, previous: Record<string, string> | undefined): Record<string, string> {
  const colon = text.indexOf(':');
  const name = colon > 0 ? text.slice(0, colon).trim() : '';
  if (!name) throw new Error(`'${text}' is not a header: use name:value, e.g. --header "x-team: billing"`);
  return { ...previous, [name]: text.slice(colon + 1).trim() };
}

/** JSON from a flag or a file, with the parser's complaint on failure (a flag's becomes a usage error). */
export function parseJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new CliError(`${what} is not valid JSON: ${(err as Error).message}`);
  }
}
