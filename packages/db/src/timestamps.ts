// How the pools read timestamptz columns. pg's own parser (postgres-date) runs three regular
// expressions over every value; an engine reads four a claimed run (scheduled time, due time,
// next attempt, the database's clock), and in a 100K herd's CPU profile that parser was 2.4 % of
// an engine's busy time (bench/results/README, stop 48). PostgreSQL's text output of a
// timestamptz in the ISO date style is one fixed shape — `2026-12-07 09:05:12.123456+00`, the
// offset `+HH`, `+HH:MM` or `+HH:MM:SS`, the fraction up to six digits or absent — which is read
// here by position. Anything else (infinity, BC, years before 1000, another date style) goes to
// pg's parser, so every value reads exactly as it did. Pure.
import pg from 'pg';

const TIMESTAMPTZ = 1184;

const fallback = pg.types.getTypeParser(TIMESTAMPTZ, 'text') as (value: string) => Date | number | null;

const ZERO = 48;

function twoDigits(s: string, at: number): number {
  const a = s.charCodeAt(at) - ZERO;
  const b = s.charCodeAt(at + 1) - ZERO;
  // NaN for a character that is not a digit (a bad shape), which sends the value to pg's parser
  return a >= 0 && a <= 9 && b >= 0 && b <= 9 ? a * 10 + b : Number.NaN;
}

/** A timestamptz in PostgreSQL's ISO text output, as pg's parser would read it. */
export function parseTimestamptz(s: string): Date | number | null {
  const n = s.length;
  // YYYY-MM-DD HH:MM:SS then at least an offset's sign and hours
  if (n < 22 || s.charCodeAt(4) !== 45 || s.charCodeAt(7) !== 45 || s.charCodeAt(10) !== 32) return fallback(s);
  if (s.charCodeAt(13) !== 58 || s.charCodeAt(16) !== 58) return fallback(s);
  const year = twoDigits(s, 0) * 100 + twoDigits(s, 2);
  const month = twoDigits(s, 5);
  const day = twoDigits(s, 8);
  const hour = twoDigits(s, 11);
  const minute = twoDigits(s, 14);
  const second = twoDigits(s, 17);
  // NaN fails this too; years before 1000 keep pg's parser (Date.UTC reads 0–99 as 1900–1999)
  if (!(year >= 1000)) return fallback(s);
  let i = 19;
  let ms = 0;
  if (s.charCodeAt(i) === 46) {
    i++;
    let scale = 100;
    for (let digit = s.charCodeAt(i) - ZERO; digit >= 0 && digit <= 9; digit = s.charCodeAt(i) - ZERO) {
      ms += digit * scale;
      scale /= 10;
      i++;
    }
    // milliseconds, the rest cut off (as the Date pg's parser builds from 1000 × the fraction)
    ms = Math.trunc(ms);
  }
  const sign = s.charCodeAt(i);
  if (sign !== 43 && sign !== 45) return fallback(s);
  let offset = twoDigits(s, i + 1) * 3600;
  i += 3;
  if (i < n) {
    if (s.charCodeAt(i) !== 58) return fallback(s);
    offset += twoDigits(s, i + 1) * 60;
    i += 3;
    if (i < n) {
      if (s.charCodeAt(i) !== 58) return fallback(s);
      offset += twoDigits(s, i + 1);
      i += 3;
    }
  }
  if (i !== n) return fallback(s);
  const time = Date.UTC(year, month - 1, day, hour, minute, second, ms) - (sign === 45 ? -offset : offset) * 1000;
  return Number.isNaN(time) ? fallback(s) : new Date(time);
}

/** The pools' type parsers: pg's, with timestamptz read by parseTimestamptz. */
export const POOL_TYPES = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === TIMESTAMPTZ && format !== 'binary') return parseTimestamptz;
    return pg.types.getTypeParser(oid, format as 'text');
  },
} as pg.CustomTypesConfig;
