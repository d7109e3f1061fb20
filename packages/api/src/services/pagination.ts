// Cursor pagination. A cursor is opaque to clients: base64url of the last row's sort key
// (a timestamp at PostgreSQL's microsecond precision, as text, plus the id breaking ties),
// tagged with the list it belongs to so a cursor from one list is refused by another.
import { AppError } from '../errors';

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 500;

export interface PageInput {
  limit?: number | undefined;
  cursor?: string | undefined;
}

export interface Page<T> {
  data: T[];
  nextCursor: string | null;
}

export interface SortKey {
  /** timestamp text as SORT_TS_SQL renders it, e.g. 2026-11-29T10:00:00.123456Z */
  t: string;
  id: string;
}

/** SQL rendering a timestamptz column as the cursor's exact, sortable text. */
export function sortTsSql(column: string): string {
  return `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
}

const TS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
const ID = /^[a-z]+_[0-9A-Z]{26}$|^\d{1,19}$/;

export function encodeCursor(kind: string, key: SortKey): string {
  return Buffer.from(JSON.stringify([kind, key.t, key.id]), 'utf8').toString('base64url');
}

export function decodeCursor(kind: string, cursor: string | undefined): SortKey | null {
  if (cursor === undefined) return null;
  const invalid = () => AppError.invalid([{ path: 'cursor', message: 'is not a cursor this list handed out' }]);
  if (!/^[A-Za-z0-9_-]{1,400}$/.test(cursor)) throw invalid();
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalid();
  }
  if (!Array.isArray(parsed) || parsed.length !== 3) throw invalid();
  const [k, t, id] = parsed as unknown[];
  if (k !== kind || typeof t !== 'string' || typeof id !== 'string' || !TS.test(t) || !ID.test(id)) throw invalid();
  if (Number.isNaN(Date.parse(t))) throw invalid();
  return { t, id };
}

/** Rows were fetched with limit + 1; the extra row only tells that another page exists. */
export function toPage<R, T>(
  kind: string,
  rows: R[],
  limit: number,
  keyOf: (row: R) => SortKey,
  view: (row: R) => T,
): Page<T> {
  const more = rows.length > limit;
  const pageRows = more ? rows.slice(0, limit) : rows;
  const last = pageRows[pageRows.length - 1];
  return { data: pageRows.map(view), nextCursor: more && last ? encodeCursor(kind, keyOf(last)) : null };
}

export function pageLimit(limit: number | undefined): number {
  const n = limit ?? DEFAULT_LIMIT;
  if (!Number.isInteger(n) || n < 1 || n > MAX_LIMIT) {
    throw AppError.invalid([{ path: 'limit', message: `must be an integer from 1 to ${MAX_LIMIT}` }]);
  }
  return n;
}

/**
 * Lists computed whole and sorted by a unique name (e.g. pull queues): the page after the
 * cursor's name. The cursor is base64url of [kind, name], refused by any other list.
 */
export function pageByName<T>(kind: string, items: T[], nameOf: (item: T) => string, input: PageInput): Page<T> {
  const limit = pageLimit(input.limit);
  let after: string | null = null;
  if (input.cursor !== undefined) {
    const invalid = () => AppError.invalid([{ path: 'cursor', message: 'is not a cursor this list handed out' }]);
    if (!/^[A-Za-z0-9_-]{1,400}$/.test(input.cursor)) throw invalid();
    let parsed: unknown;
    try {
      parsed = JSON.parse(Buffer.from(input.cursor, 'base64url').toString('utf8'));
    } catch {
      throw invalid();
    }
    if (!Array.isArray(parsed) || parsed.length !== 2 || parsed[0] !== kind || typeof parsed[1] !== 'string') {
      throw invalid();
    }
    after = parsed[1];
  }
  const rest = after === null ? items : items.filter((item) => nameOf(item) > after);
  const data = rest.slice(0, limit);
  const last = data[data.length - 1];
  return {
    data,
    nextCursor:
      rest.length > limit && last
        ? Buffer.from(JSON.stringify([kind, nameOf(last)]), 'utf8').toString('base64url')
        : null,
  };
}
