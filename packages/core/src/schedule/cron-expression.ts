// Cron expression syntax: validation with human messages, and compilation into lookup
// tables for the wall-clock matcher. cron-parser does the parsing (so we accept exactly the
// syntax it accepts, minus the extras that misbehave); we never use its iterator, which
// costs tens of microseconds per step and gets daylight-saving edges wrong (see
// cron-parser-behaviour.test.ts).

import { CronExpressionParser } from 'cron-parser';
import { daysInMonth, daysFromCivil, weekdayFromDays } from './civil';
import { Lru } from './lru';

/** An expression turned into tables; "next value >= i" lookups make matching O(1) per unit. */
export interface CompiledCron {
  readonly expression: string;
  /** nextX[i]: smallest allowed value >= i, or -1. prevX[i]: largest allowed value <= i, or -1. */
  readonly nextSecond: Int8Array;
  readonly prevSecond: Int8Array;
  readonly nextMinute: Int8Array;
  readonly prevMinute: Int8Array;
  readonly nextHour: Int8Array;
  readonly prevHour: Int8Array;
  readonly nextMonth: Int8Array;
  readonly prevMonth: Int8Array;
  readonly seconds: Uint8Array;
  readonly minutes: Uint8Array;
  readonly hours: Uint8Array;
  readonly months: Uint8Array;
  readonly daysOfMonth: Uint8Array;
  readonly nextDayOfMonth: Int8Array;
  readonly prevDayOfMonth: Int8Array;
  readonly lastDayOfMonth: boolean;
  readonly daysOfWeek: Uint8Array;
  /** Weekdays whose last occurrence in the month matches ("5L"). */
  readonly lastWeekdays: Uint8Array;
  readonly hasLastWeekday: boolean;
  /** n of "1#n", or 0. */
  readonly nthWeekday: number;
  readonly dayOfMonthStar: boolean;
  readonly dayOfWeekStar: boolean;
  /**
   * The hour field matches every hour ("*", "?", "0-23", "*\/1"). Such expressions fire at
   * both instants of a repeated wall-clock time; we go by the set rather than the spelling
   * so that equivalent expressions behave the same.
   */
  readonly everyHour: boolean;
  /** The six fields after macro expansion, seconds first; for messages. */
  readonly fields: readonly string[];
}

const FIELD_NAMES = ['second', 'minute', 'hour', 'day-of-month', 'month', 'day-of-week'] as const;

// cron-parser's macros. The non-standard ones (@minutely, @weekdays, ...) are plain
// abbreviations that behave, so there is no reason to refuse them.
const MACROS: Readonly<Record<string, string>> = {
  '@yearly': '0 0 0 1 1 *',
  '@annually': '0 0 0 1 1 *',
  '@monthly': '0 0 0 1 * *',
  '@weekly': '0 0 0 * * 0',
  '@daily': '0 0 0 * * *',
  '@hourly': '0 0 * * * *',
  '@minutely': '0 * * * * *',
  '@secondly': '* * * * * *',
  '@weekdays': '0 0 0 * * 1-5',
  '@weekends': '0 0 0 * * 0,6',
};

const ALIAS_RE = /jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|sun|mon|tue|wed|thu|fri|sat/gi;

function splitFields(expression: string): string[] | string {
  if (typeof expression !== 'string') return 'cron expression must be a string';
  const trimmed = expression.trim();
  if (trimmed === '') return 'cron expression is empty';
  if (trimmed.startsWith('@')) {
    const expanded = MACROS[trimmed];
    if (expanded === undefined) {
      return `unknown cron macro '${trimmed}' (supported: ${Object.keys(MACROS).join(', ')})`;
    }
    return expanded.split(' ');
  }
  const fields = trimmed.split(/\s+/);
  if (fields.length !== 5 && fields.length !== 6) {
    return `cron expression must have 5 or 6 fields (minute hour day-of-month month day-of-week, optionally preceded by seconds); got ${fields.length}`;
  }
  return fields.length === 6 ? fields : ['0', ...fields];
}

/** cron-parser messages, minus the class names they sometimes start with. */
function firstLower(message: string): string {
  const text = message.replace(/^Cron[A-Za-z]+ /, '');
  return text.charAt(0).toLowerCase() + text.slice(1);
}

function parse(fields: readonly string[]): ReturnType<typeof CronExpressionParser.parse> {
  // A fixed currentDate: parse() otherwise reads the clock, and we never iterate anyway.
  return CronExpressionParser.parse(fields.join(' '), { currentDate: 0, tz: 'UTC' });
}

/** Names the field at fault, which cron-parser's messages do not. */
function describeParseError(fields: readonly string[], error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  for (let i = 0; i < 6; i++) {
    const probe = ['0', '*', '*', '*', '*', '*'];
    probe[i] = fields[i] as string;
    try {
      parse(probe);
    } catch (fieldError) {
      const detail = fieldError instanceof Error ? fieldError.message : String(fieldError);
      return `invalid ${FIELD_NAMES[i]} field '${fields[i]}': ${firstLower(detail)}`;
    }
  }
  if (message === 'Invalid explicit day of month definition') {
    return `cron expression never fires: day-of-month '${fields[3]}' does not occur in month '${fields[4]}'`;
  }
  return `invalid cron expression: ${firstLower(message)}`;
}

function tables(values: readonly (number | string)[], size: number) {
  const set = new Uint8Array(size);
  for (const v of values) if (typeof v === 'number' && v >= 0 && v < size) set[v] = 1;
  const next = new Int8Array(size + 1).fill(-1);
  const prev = new Int8Array(size).fill(-1);
  for (let i = size - 1, n = -1; i >= 0; i--) {
    if (set[i] === 1) n = i;
    next[i] = n;
  }
  for (let i = 0, p = -1; i < size; i++) {
    if (set[i] === 1) p = i;
    prev[i] = p;
  }
  return { set, next, prev };
}

function compileFields(fields: readonly string[]): CompiledCron | string {
  for (let i = 0; i < 6; i++) {
    const field = fields[i] as string;
    // 'H' is cron-parser's random jitter. Unseeded it differs per process, so two scheduler
    // nodes (or a restart) would disagree about when the job fires.
    if (/H/.test(i >= 4 ? field.replace(ALIAS_RE, '') : field)) {
      return `invalid ${FIELD_NAMES[i]} field '${field}': 'H' (hashed random values) is not supported`;
    }
  }
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(fields);
  } catch (error) {
    return describeParseError(fields, error);
  }
  const f = parsed.fields;
  const second = tables(f.second.values, 60);
  const minute = tables(f.minute.values, 60);
  const hour = tables(f.hour.values, 24);
  const month = tables(f.month.values, 13);
  const dayOfMonth = tables(f.dayOfMonth.values, 32);
  const daysOfWeek = new Uint8Array(7);
  const lastWeekdays = new Uint8Array(7);
  for (const v of f.dayOfWeek.values) {
    if (typeof v === 'number') daysOfWeek[v % 7] = 1;
    // Mirrors cron-parser: with an L anywhere in the field, the leading digit of every
    // value counts as "last <weekday> of the month" (a no-op for plain weekdays).
    if (f.dayOfWeek.hasLastChar) lastWeekdays[Number.parseInt(String(v).charAt(0), 10) % 7] = 1;
  }
  const compiled: CompiledCron = {
    expression: fields.join(' '),
    nextSecond: second.next,
    prevSecond: second.prev,
    nextMinute: minute.next,
    prevMinute: minute.prev,
    nextHour: hour.next,
    prevHour: hour.prev,
    nextMonth: month.next,
    prevMonth: month.prev,
    seconds: second.set,
    minutes: minute.set,
    hours: hour.set,
    months: month.set,
    daysOfMonth: dayOfMonth.set,
    nextDayOfMonth: dayOfMonth.next,
    prevDayOfMonth: dayOfMonth.prev,
    lastDayOfMonth: f.dayOfMonth.hasLastChar,
    daysOfWeek,
    lastWeekdays,
    hasLastWeekday: f.dayOfWeek.hasLastChar,
    nthWeekday: f.dayOfWeek.nthDay,
    dayOfMonthStar: f.dayOfMonth.isWildcard,
    dayOfWeekStar: f.dayOfWeek.isWildcard,
    everyHour: hour.set.every((v) => v === 1),
    fields,
  };
  if (!firesEver(compiled)) {
    return `cron expression never fires: no date matches day-of-month '${fields[3]}', month '${fields[4]}' and day-of-week '${fields[5]}'`;
  }
  return compiled;
}

/** The day-of-month / day-of-week rules of cron-parser (Vixie's OR when both are restricted). */
export function dayMatches(c: CompiledCron, year: number, month: number, day: number, weekday: number): boolean {
  const dim = daysInMonth(year, month);
  const domMatch = c.daysOfMonth[day] === 1 || (c.lastDayOfMonth && day === dim);
  const dowMatch =
    (c.daysOfWeek[weekday] === 1 && (c.nthWeekday === 0 || Math.ceil(day / 7) === c.nthWeekday)) ||
    (c.hasLastWeekday && c.lastWeekdays[weekday] === 1 && day > dim - 7);
  if (!c.dayOfMonthStar && !c.dayOfWeekStar) return domMatch || dowMatch;
  if (c.dayOfWeekStar) return domMatch;
  return dowMatch;
}

/**
 * The Gregorian calendar repeats every 400 years, so an expression with no matching day in
 * one such cycle never fires. Times of day cannot be empty (every field has a value).
 */
// Nearly every expression matches within days; the full scan runs only for expressions
// that never fire, once per distinct expression (the result is cached).
function firesEver(c: CompiledCron): boolean {
  for (let year = 2000; year < 2400; year++) {
    for (let month = 1; month <= 12; month++) {
      if (c.months[month] !== 1) continue;
      const first = daysFromCivil(year, month, 1);
      const dim = daysInMonth(year, month);
      for (let day = 1; day <= dim; day++) {
        if (dayMatches(c, year, month, day, weekdayFromDays(first + day - 1))) return true;
      }
    }
  }
  return false;
}

const cache = new Lru<string, CompiledCron | string>(2048);

/** Compiled form of a valid expression, or the validation message. Cached by expression. */
export function compileCron(expression: string): CompiledCron | string {
  let result = cache.get(expression);
  if (result === undefined) {
    const fields = splitFields(expression);
    result = typeof fields === 'string' ? fields : compileFields(fields);
    if (typeof expression === 'string' && expression.length <= 1024) cache.set(expression, result);
  }
  return result;
}

/** Null when the expression is fine, else a message for a human. */
export function validateCronExpression(expression: string): string | null {
  const result = compileCron(expression);
  return typeof result === 'string' ? result : null;
}

/** compileCron for callers that were handed an already-validated expression. */
export function requireCron(expression: string): CompiledCron {
  const result = compileCron(expression);
  if (typeof result === 'string') throw new RangeError(result);
  return result;
}
