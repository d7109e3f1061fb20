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
  const [t, id] = cursorFields(kind, cursor, 2);
  if (typeof t !== 'string' || typeof id !== 'string' || !TS.test(t) || !ID.test(id)) throw invalidCursor();
  if (Number.isNaN(Date.parse(t))) throw invalidCursor();
  return { t, id };
}

function invalidCursor(): AppError {
  return AppError.invalid([{ path: 'cursor', message: 'is not a cursor this list handed out' }]);
}

/** The fields after the kind of a cursor `kind`'s list handed out, exactly `count` of them. */
function cursorFields(kind: string, cursor: string, count: number): unknown[] {
  if (!/^[A-Za-z0-9_-]{1,400}$/.test(cursor)) throw invalidCursor();
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalidCursor();
  }
  if (!Array.isArray(parsed) || parsed.length !== count + 1 || parsed[0] !== kind) throw invalidCursor();
  return parsed.slice(1);
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
 * Lists keyed by a unique name (e.g. pull queues) page by the name: the cursor is base64url of
 * [kind, last name], refused by any other list.
 */
export function encodeNameCursor(kind: string, name: string): string {
  return Buffer.from(JSON.stringify([kind, name]), 'utf8').toString('base64url');
}

/** The last name of the previous page, or null without a cursor. */
export function decodeNameCursor(kind: string, cursor: string | undefined): string | null {
  if (cursor === undefined) return null;
  const [name] = cursorFields(kind, cursor, 1);
  if (typeof name !== 'string') throw invalidCursor();
  return name;
}
