// `jobs create --from-file jobs.ndjson`: one POST /api/v1/jobs body per line, sent in
// batches of up to 1,000 (POST /api/v1/jobs/batch, each all or nothing). Every line is read
// and checked as JSON before anything is sent, and the server's errors (`jobs.17.name`) are
// turned back into the line they came from.
import { ApiError } from '@belfry/client';
import { CliError } from './errors';

export const BATCH_SIZE = 1_000;

export interface NdjsonLine {
  /** 1-based line number in the file */
  line: number;
  body: Record<string, unknown>;
}

/** The non-blank lines of an NDJSON file, each a JSON object; a bad line stops with its number. */
export function parseNdjson(text: string, source: string): NdjsonLine[] {
  const out: NdjsonLine[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const raw = (lines[i] as string).replace(/\r$/, '');
    if (raw.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (err) {
      throw new CliError(`${source} line ${i + 1}: not valid JSON (${(err as Error).message})`);
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw new CliError(`${source} line ${i + 1}: must be a JSON object (one POST /api/v1/jobs body per line)`);
    }
    out.push({ line: i + 1, body: value as Record<string, unknown> });
  }
  if (!out.length) throw new CliError(`${source}: no jobs in the file`);
  return out;
}

export function chunks<T>(items: readonly T[], size = BATCH_SIZE): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * A batch the server refused, in terms of the file: each field error names its line. `created`
 * counts the jobs earlier batches already created (they stay; each batch is all or nothing).
 */
export function batchFailure(err: unknown, batch: readonly NdjsonLine[], source: string, created: number): unknown {
  if (!(err instanceof ApiError)) return err;
  const first = batch[0]?.line ?? 0;
  const last = batch.at(-1)?.line ?? 0;
  const lines: string[] = [];
  const detail = err.problem.detail || err.problem.title || `HTTP ${err.status}`;
  const errors = err.problem.errors ?? [];
  if (errors.length) {
    lines.push(`${source}: the batch of lines ${first}-${last} was refused; nothing in it was created:`);
    for (const e of errors) {
      const m = /^jobs\.(\d+)(?:\.(.*))?$/.exec(e.path);
      const item = m ? batch[Number(m[1])] : undefined;
      if (item) lines.push(`  line ${item.line}: ${m?.[2] ? `${m[2]}: ` : ''}${e.message}`);
      else lines.push(`  ${e.path ? `${e.path}: ` : ''}${e.message}`);
    }
  } else {
    lines.push(`${source} lines ${first}-${last}: ${detail}; nothing in this batch was created`);
  }
  if (err.status === 429 && err.retryAfterSeconds !== null) lines.push(`  retry after ${err.retryAfterSeconds} s`);
  lines.push(
    created
      ? `${created} job${created === 1 ? '' : 's'} from lines before ${first} were created; lines from ${first} on were not sent or not created.`
      : 'No job was created.',
  );
  return new CliError(lines.join('\n'));
}
