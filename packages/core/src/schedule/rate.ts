// How many occurrences per minute a schedule produces, for the runs-per-minute limit. Cron
// counts the times of day it fires (seconds × minutes × hours) spread over the day's 1,440
// minutes, on the days it fires at all: a weekly job at 09:00 counts like a daily one, and
// "* * * * * *" counts 60 whichever days it is restricted to. That is the load it puts on the
// fleet on the days it runs, which is what the limit protects. Intervals are 60 / everySeconds;
// a one-off job is a single occurrence, not a rate, and counts 0 (the job limit covers it).
import { requireCron } from './cron-expression';
import type { ScheduleSpec } from './schedule';

function count(set: Uint8Array): number {
  let n = 0;
  for (const v of set) n += v;
  return n;
}

export function runsPerMinute(spec: ScheduleSpec): number {
  switch (spec.type) {
    case 'once':
      return 0;
    case 'interval':
      return 60 / spec.everySeconds;
    case 'cron': {
      const c = requireCron(spec.expression);
      return (count(c.seconds) * count(c.minutes) * count(c.hours)) / 1440;
    }
  }
}
