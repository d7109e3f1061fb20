// Pending scheduled runs for the integration tests of claims: `n` runs of one new job, 1 ms
// apart from a minute ago (due) or from `firstAt`, inserted in one statement as the scheduler
// materializes them, with a lease hint when `leaseHintMs` is given.
import { newId } from '@belfry/core';
import type { TestDatabase } from '../../../test/db';
import { insertJob } from '../../../test/fixtures';
import { type InsertedRun, insertScheduledRuns } from '../src/index';

export interface PendingRunsOptions {
  /** the first run's scheduled time (default: a minute ago, on a whole second) */
  firstAt?: Date;
  /** the runs' lease hint (NewScheduledRun.leaseHintMs; default: none) */
  leaseHintMs?: number;
}

export async function insertPendingRunsOfOneJob(
  db: TestDatabase,
  tenantId: string,
  n: number,
  options: PendingRunsOptions = {},
): Promise<{ jobId: string; runs: InsertedRun[] }> {
  const job = await insertJob(db.pool, tenantId, {
    schedule: { type: 'cron', expression: '0 0 1 1 *', timezone: 'UTC' },
    url: 'http://127.0.0.1:9/hook',
    partitions: db.partitions,
  });
  const base = options.firstAt?.getTime() ?? Math.floor(Date.now() / 1000) * 1000 - 60_000;
  const runs = await insertScheduledRuns(
    db.pool,
    Array.from({ length: n }, (_, i) => {
      const scheduledTime = new Date(base + i);
      return {
        id: newId('run', scheduledTime),
        tenantId,
        jobId: job.id,
        scheduledTime,
        status: 'pending' as const,
        skipReason: null,
        priority: 'normal' as const,
        ...(options.leaseHintMs === undefined ? {} : { leaseHintMs: options.leaseHintMs }),
      };
    }),
  );
  return { jobId: job.id, runs };
}
