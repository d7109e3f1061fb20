// Builds the schedule spec of a job row; the one place the engine maps columns to core types.
import type { ScheduleSpec } from '@belfry/core';

export interface ScheduleColumns {
  schedule_type: 'once' | 'cron' | 'interval';
  cron_expression: string | null;
  timezone: string;
  run_at: Date | null;
  every_seconds: number | null;
  anchor_at: Date;
}

export function specOf(row: ScheduleColumns): ScheduleSpec {
  switch (row.schedule_type) {
    case 'once':
      return { type: 'once', runAt: row.run_at as Date };
    case 'cron':
      return { type: 'cron', expression: row.cron_expression as string, timezone: row.timezone };
    case 'interval':
      return { type: 'interval', everySeconds: row.every_seconds as number, anchor: row.anchor_at };
  }
}
