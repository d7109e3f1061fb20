// Materializes scheduled occurrences. The unique index runs_job_occurrence_key (job_id,
// scheduled_time, and '' for every scheduled run: migration 20261202040000) makes this
// idempotent: an occurrence that already has a scheduled run is skipped, and only the rows actually inserted come back (to be enqueued). `dueAt` is when the
// occurrence starts (its scheduled time plus the job's jitter offset); the unique key stays the
// nominal occurrence, so jitter never makes two runs of one occurrence.
import type { Priority, SkipReason } from '@belfry/core';
import type { Queryable } from './types';

export interface NewScheduledRun {
  id: string;
  tenantId: string;
  jobId: string;
  scheduledTime: Date;
  /** default: the scheduled time (no jitter) */
  dueAt?: Date;
  status: 'pending' | 'skipped';
  skipReason: SkipReason | null;
  priority: Priority;
  /**
   * The lease hint of the pending run's open_runs row: listed leased until its due time plus this
   * (ms; open-runs.ts, "lease hints"). An engine's claim whose lease the hint does not outlast,
   * made before the hint passes, then writes nothing there. Unset: no hint (the claim writes its
   * lease), as for a pull queue's run, whose lease its claim keeps in running_runs.
   */
  leaseHintMs?: number;
}

export interface InsertedRun {
  id: string;
  tenant_id: string;
  job_id: string;
  scheduled_time: Date;
  due_at: Date;
  status: 'pending' | 'skipped';
  priority: Priority;
}

export async function insertScheduledRuns(tx: Queryable, runs: NewScheduledRun[]): Promise<InsertedRun[]> {
  if (!runs.length) return [];
  // A pending run is listed in open_runs by the same statement (open-runs.ts); a skipped one is
  // inserted finished.
  const { rows } = await tx.query<InsertedRun>(
    `WITH inserted AS (
       INSERT INTO runs (id, tenant_id, job_id, scheduled_time, due_at, status, skip_reason, trigger, priority, finished_at)
       SELECT r.id, r.tenant_id, r.job_id, r.scheduled_time, r.due_at, r.status, r.skip_reason, 'schedule', r.priority,
              CASE WHEN r.status = 'skipped' THEN now() END
       FROM unnest($1::text[], $2::text[], $3::text[], $4::timestamptz[], $5::text[], $6::text[], $7::text[],
                   $8::timestamptz[])
            AS r(id, tenant_id, job_id, scheduled_time, status, skip_reason, priority, due_at)
       ON CONFLICT (job_id, scheduled_time, (CASE WHEN trigger = 'schedule' THEN '' ELSE id END)) DO NOTHING
       RETURNING id, tenant_id, job_id, scheduled_time, due_at, status, priority
     ), listed AS (
       INSERT INTO open_runs (job_id, scheduled_time, run_id, leased_until)
       SELECT i.job_id, i.scheduled_time, i.id, i.due_at + make_interval(secs => h.hint_ms / 1000)
         FROM inserted i JOIN unnest($1::text[], $9::float8[]) AS h(id, hint_ms) ON h.id = i.id
        WHERE i.status = 'pending'
     )
     SELECT * FROM inserted`,
    [
      runs.map((r) => r.id),
      runs.map((r) => r.tenantId),
      runs.map((r) => r.jobId),
      runs.map((r) => r.scheduledTime),
      runs.map((r) => r.status),
      runs.map((r) => r.skipReason),
      runs.map((r) => r.priority),
      runs.map((r) => r.dueAt ?? r.scheduledTime),
      runs.map((r) => r.leaseHintMs ?? null),
    ],
  );
  return rows;
}
