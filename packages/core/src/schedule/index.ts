// Schedule maths: when one-off, cron and interval jobs fire, including the daylight-saving
// contract for cron (see cron.ts), plus validation of expressions and time zones.

export {
  type ScheduleSpec,
  countFireTimesBetween,
  dstNoteFor,
  fireTimesBetween,
  latestFireTimeAtOrBefore,
  nextFireTime,
  nextFireTimes,
  validateScheduleSpec,
} from './schedule';
export { validateCronExpression } from './cron-expression';
export { validateTimezone } from './zone';
export { runsPerMinute } from './rate';
