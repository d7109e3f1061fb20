// Builds the schedule spec of a job row: the one mapping from the jobs columns to the core
// ScheduleSpec, used by the API (next run on create/patch) and the scheduler (due scan).
import type { ScheduleSpec } from '@belfry/core';

export interface ScheduleColumns {
  schedule_type: 'once' | 'cron' | 'interval';
  cron_expression: string | null;
  timezone: string;
  run_at: Date | null;
  every_seconds: number | null;
  /** intervals only (null for cron and one-off jobs since the anchor migration; older rows may hold one) */
  anchor_at: Date | null;
}

export function specOf(row: ScheduleColumns): ScheduleSpec {
  switch (row.schedule_type) {
    case 'once':
      return { type: 'once', runAt: row.run_at as Date };
    case 'cron':
      return { type: 'cron', expression: row.cron_expression as string, timezone: row.timezone };
    case 'interval':
      return { type: 'interval', everySeconds: row.every_seconds as number, anchor: row.anchor_at as Date };
  }
}
