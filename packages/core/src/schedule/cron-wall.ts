// Matching cron expressions against wall-clock times, with no time zone in sight: values are
// "local seconds" (see civil.ts). The zone-aware layer (cron.ts) maps these to instants.
// Each search jumps straight to the next allowed month, day, hour, minute and second, so it
// costs a handful of steps, not one per candidate second.

import {
  civilFromDays,
  daysFromCivil,
  daysInMonth,
  MAX_YEAR,
  MIN_YEAR,
  SECONDS_PER_DAY,
  weekdayFromDays,
} from './civil';
import { type CompiledCron, dayMatches } from './cron-expression';

/** Smallest matching second-of-day >= sod, or -1. */
function nextTimeOfDay(c: CompiledCron, sod: number): number {
  let h = Math.floor(sod / 3600);
  let m = Math.floor((sod % 3600) / 60);
  let s = sod % 60;
  for (;;) {
    const hh = c.nextHour[h] as number;
    if (hh < 0) return -1;
    if (hh !== h) {
      h = hh;
      m = 0;
      s = 0;
    }
    const mm = c.nextMinute[m] as number;
    if (mm < 0) {
      h++;
      m = 0;
      s = 0;
      continue;
    }
    if (mm !== m) {
      m = mm;
      s = 0;
    }
    const ss = c.nextSecond[s] as number;
    if (ss < 0) {
      m++;
      s = 0;
      if (m === 60) {
        h++;
        m = 0;
      }
      continue;
    }
    return h * 3600 + m * 60 + ss;
  }
}

/** Largest matching second-of-day <= sod, or -1. */
function prevTimeOfDay(c: CompiledCron, sod: number): number {
  let h = Math.floor(sod / 3600);
  let m = Math.floor((sod % 3600) / 60);
  let s = sod % 60;
  for (;;) {
    if (h < 0) return -1;
    const hh = c.prevHour[h] as number;
    if (hh < 0) return -1;
    if (hh !== h) {
      h = hh;
      m = 59;
      s = 59;
    }
    const mm = m < 0 ? -1 : (c.prevMinute[m] as number);
    if (mm < 0) {
      h--;
      m = 59;
      s = 59;
      continue;
    }
    if (mm !== m) {
      m = mm;
      s = 59;
    }
    const ss = s < 0 ? -1 : (c.prevSecond[s] as number);
    if (ss < 0) {
      m--;
      s = 59;
      if (m < 0) {
        h--;
        m = 59;
      }
      continue;
    }
    return h * 3600 + m * 60 + ss;
  }
}

/** Smallest matching wall time strictly after `lb` (local seconds), or null past year 9999. */
export function nextWall(c: CompiledCron, lb: number): number | null {
  const t = lb + 1;
  let days = Math.floor(t / SECONDS_PER_DAY);
  let sod = t - days * SECONDS_PER_DAY;
  let { year, month, day } = civilFromDays(days);
  if (year < MIN_YEAR) {
    year = MIN_YEAR;
    month = 1;
    day = 1;
    days = daysFromCivil(year, 1, 1);
    sod = 0;
  }
  let weekday = weekdayFromDays(days);
  for (;;) {
    if (year > MAX_YEAR) return null;
    if (c.months[month] !== 1) {
      const nm = month < 12 ? (c.nextMonth[month + 1] as number) : -1;
      if (nm < 0) {
        year++;
        month = c.nextMonth[1] as number;
      } else {
        month = nm;
      }
      day = 1;
      days = daysFromCivil(year, month, 1);
      weekday = weekdayFromDays(days);
      sod = 0;
      continue;
    }
    if (dayMatches(c, year, month, day, weekday)) {
      const tod = nextTimeOfDay(c, sod);
      if (tod >= 0) return days * SECONDS_PER_DAY + tod;
    } else if (c.dayOfWeekStar) {
      // Only the day of month matters, so jump to the next listed day (or to the month's
      // last, from where the step below rolls over) instead of walking day by day.
      const dim = daysInMonth(year, month);
      let target = c.nextDayOfMonth[day + 1] as number;
      if (target < 0 || target > dim) target = dim;
      if (target > day) {
        days += target - day;
        weekday = (weekday + target - day) % 7;
        day = target;
        sod = 0;
        if (target !== dim || dayMatches(c, year, month, day, weekday)) continue;
      }
    }
    days++;
    weekday = weekday === 6 ? 0 : weekday + 1;
    sod = 0;
    if (++day > daysInMonth(year, month)) {
      day = 1;
      if (++month > 12) {
        month = 1;
        year++;
      }
    }
  }
}

/** Largest matching wall time strictly before `ub` (local seconds), or null before year 1. */
export function prevWall(c: CompiledCron, ub: number): number | null {
  const t = ub - 1;
  let days = Math.floor(t / SECONDS_PER_DAY);
  let sod = t - days * SECONDS_PER_DAY;
  let { year, month, day } = civilFromDays(days);
  if (year > MAX_YEAR) {
    year = MAX_YEAR;
    month = 12;
    day = 31;
    days = daysFromCivil(year, 12, 31);
    sod = SECONDS_PER_DAY - 1;
  }
  let weekday = weekdayFromDays(days);
  for (;;) {
    if (year < MIN_YEAR) return null;
    if (c.months[month] !== 1) {
      const pm = month > 1 ? (c.prevMonth[month - 1] as number) : -1;
      if (pm < 0) {
        year--;
        month = c.prevMonth[12] as number;
      } else {
        month = pm;
      }
      day = daysInMonth(year, month);
      days = daysFromCivil(year, month, day);
      weekday = weekdayFromDays(days);
      sod = SECONDS_PER_DAY - 1;
      continue;
    }
    if (dayMatches(c, year, month, day, weekday)) {
      const tod = prevTimeOfDay(c, sod);
      if (tod >= 0) return days * SECONDS_PER_DAY + tod;
    } else if (c.dayOfWeekStar && day > 1) {
      // As in nextWall: jump to the previous listed day, or to the 1st to roll over.
      const target = Math.max(c.prevDayOfMonth[day - 1] as number, 1);
      days -= day - target;
      weekday = (((weekday - (day - target)) % 7) + 7) % 7;
      day = target;
      sod = SECONDS_PER_DAY - 1;
      if (target !== 1 || dayMatches(c, year, month, day, weekday)) continue;
    }
    days--;
    weekday = weekday === 0 ? 6 : weekday - 1;
    sod = SECONDS_PER_DAY - 1;
    if (--day < 1) {
      if (--month < 1) {
        month = 12;
        year--;
      }
      day = daysInMonth(year, month);
    }
  }
}

/** Whether the wall time (local seconds) matches the expression. */
export function wallMatches(c: CompiledCron, wall: number): boolean {
  const days = Math.floor(wall / SECONDS_PER_DAY);
  const sod = wall - days * SECONDS_PER_DAY;
  const { year, month, day } = civilFromDays(days);
  return (
    c.months[month] === 1 &&
    c.hours[Math.floor(sod / 3600)] === 1 &&
    c.minutes[Math.floor((sod % 3600) / 60)] === 1 &&
    c.seconds[sod % 60] === 1 &&
    dayMatches(c, year, month, day, weekdayFromDays(days))
  );
}
