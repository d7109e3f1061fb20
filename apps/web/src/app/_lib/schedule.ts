// Schedules in words: cron via cronstrue (5 fields, or 6 with seconds first, as Belfry
// reads them), intervals and one-off times by hand.
import type { Schedule } from '@belfry/client';
import cronstrue from 'cronstrue';
import { formatLocal } from './time';

/** A job's schedule as the API answers it (generated from its OpenAPI document). */
export type { Schedule };

export function cronInWords(expression: string): { ok: true; text: string } | { ok: false; text: string } {
  const trimmed = expression.trim();
  if (!trimmed) return { ok: false, text: 'Enter 5 fields (minute hour day month weekday), or 6 with seconds first.' };
  const fields = trimmed.split(/\s+/).length;
  if (fields !== 5 && fields !== 6) return { ok: false, text: `Belfry takes 5 or 6 fields; this has ${fields}.` };
  try {
    return {
      ok: true,
      text: cronstrue.toString(trimmed, { use24HourTimeFormat: true, throwExceptionOnParseError: true }),
    };
  } catch (err) {
    return {
      ok: false,
      text: typeof err === 'string' ? err : err instanceof Error ? err.message : 'Not a valid expression',
    };
  }
}

const INTERVAL_UNITS: Array<[number, string]> = [
  [86_400, 'day'],
  [3_600, 'hour'],
  [60, 'minute'],
  [1, 'second'],
];

export function intervalInWords(everySeconds: number): string {
  for (const [size, unit] of INTERVAL_UNITS) {
    if (everySeconds % size === 0) {
      const n = everySeconds / size;
      return n === 1 ? `Every ${unit}` : `Every ${n} ${unit}s`;
    }
  }
  return `Every ${everySeconds} seconds`;
}

export function scheduleInWords(schedule: Schedule): string {
  switch (schedule.type) {
    case 'cron': {
      const words = cronInWords(schedule.expression);
      return words.ok ? words.text : schedule.expression;
    }
    case 'interval':
      return intervalInWords(schedule.everySeconds);
    case 'once':
      return `Once, ${formatLocal(schedule.runAt)}`;
  }
}

export function scheduleRaw(schedule: Schedule): string {
  switch (schedule.type) {
    case 'cron':
      return schedule.expression;
    case 'interval':
      return `every ${schedule.everySeconds}s`;
    case 'once':
      return schedule.runAt;
  }
}

export function scheduleZone(schedule: Schedule): string {
  return schedule.type === 'cron' ? schedule.timezone : 'UTC';
}
