// Proleptic Gregorian calendar arithmetic on plain integers. Wall-clock times are handled
// as "local seconds": seconds since 1970-01-01T00:00:00 as if the wall clock were UTC, so
// calendar maths never touches a Date or a time zone and allocates nothing on the hot path.

export const SECONDS_PER_DAY = 86_400;

/** Years the schedule maths supports; searches give up rather than run past them. */
export const MIN_YEAR = 1;
export const MAX_YEAR = 9999;

/** Days since 1970-01-01 of a civil date (month 1-12). Howard Hinnant's algorithm. */
export function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146_097 + doe - 719_468;
}

export interface CivilDate {
  year: number;
  month: number;
  day: number;
}

/** Inverse of daysFromCivil. */
export function civilFromDays(days: number): CivilDate {
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  return { year: yoe + era * 400 + (month <= 2 ? 1 : 0), month, day };
}

export function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

const MONTH_DAYS = [0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

export function daysInMonth(year: number, month: number): number {
  return month === 2 && isLeapYear(year) ? 29 : (MONTH_DAYS[month] as number);
}

/** 0 = Sunday ... 6 = Saturday (1970-01-01 was a Thursday). */
export function weekdayFromDays(days: number): number {
  return (((days + 4) % 7) + 7) % 7;
}

/** UTC calendar year containing the instant (seconds since the epoch). */
export function utcYearOf(seconds: number): number {
  return civilFromDays(Math.floor(seconds / SECONDS_PER_DAY)).year;
}

function pad(n: number, width = 2): string {
  return String(n).padStart(width, '0');
}

/** "2026-03-29" for a local-seconds value. */
export function formatLocalDate(localSeconds: number): string {
  const { year, month, day } = civilFromDays(Math.floor(localSeconds / SECONDS_PER_DAY));
  return `${year < 0 ? '-' : ''}${pad(Math.abs(year), 4)}-${pad(month)}-${pad(day)}`;
}

/** "02:30", or "02:30:15" when the seconds matter, for a local-seconds value. */
export function formatLocalTime(localSeconds: number): string {
  const sod = localSeconds - Math.floor(localSeconds / SECONDS_PER_DAY) * SECONDS_PER_DAY;
  const h = Math.floor(sod / 3600);
  const m = Math.floor((sod % 3600) / 60);
  const s = sod % 60;
  return s === 0 ? `${pad(h)}:${pad(m)}` : `${pad(h)}:${pad(m)}:${pad(s)}`;
}

/** "UTC+05:30" for an offset in seconds (seconds appended for historic mean-time offsets). */
export function formatOffset(offsetSeconds: number): string {
  const sign = offsetSeconds < 0 ? '-' : '+';
  const abs = Math.abs(offsetSeconds);
  const base = `UTC${sign}${pad(Math.floor(abs / 3600))}:${pad(Math.floor((abs % 3600) / 60))}`;
  return abs % 60 === 0 ? base : `${base}:${pad(abs % 60)}`;
}
