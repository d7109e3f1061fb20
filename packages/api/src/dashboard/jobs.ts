// The dashboard's jobs table: a page of jobs (name search is case-insensitive and matches
// anywhere, unlike the API's prefix match) with each job's recent outcomes for the status
// column and sparkline, fetched with the page in ONE query (a lateral join per job over the
// runs index), plus how many jobs each status filter holds. The lateral filters on job_id
// alone (the page's jobs are already the tenant's) so it can only use runs_job_occurrence_key,
// which stays cheap however many runs the rest of the tenant has.
import { z } from 'zod';
import type { Actor, ServiceDeps } from '../context';
import { JOB_STATUSES, type RunStatus } from '@belfry/core';
import type { JobView } from '../schemas/resources';
import { authorize } from '../security/scopes';
import { JOB_SELECT, type JobRow, toJobView } from '../services/job-rows';
import { inFlightSql, jobPageSql, tenantJobsSql, tenantSeq } from '../services/job-page';
import { decodeCursor, type Page, toPage } from '../services/pagination';

export const SPARKLINE_RUNS = 20;

export const JobsTableInput = z.strictObject({
  search: z.string().trim().max(200).optional(),
  status: z.enum(JOB_STATUSES).optional(),
  limit: z.int().min(1).max(200).default(50),
  cursor: z.string().min(1).max(400).optional(),
});
export type JobsTableInput = z.input<typeof JobsTableInput>;

export interface RecentOutcome {
  id: string;
  status: RunStatus;
  scheduledTime: string;
}

export interface JobWithActivity extends JobView {
  /** newest first, at most SPARKLINE_RUNS, occurrences that are due (none ahead of now) */
  recent: RecentOutcome[];
}

export interface JobsTable extends Page<JobWithActivity> {
  counts: { all: number; active: number; paused: number; completed: number };
}

function likePattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

export async function jobsTable(deps: ServiceDeps, actor: Actor, raw: JobsTableInput): Promise<JobsTable> {
  authorize(actor, 'jobs:read');
  const input = JobsTableInput.parse(raw);
  const after = decodeCursor('jobs', input.cursor);
  const seq = await tenantSeq(deps.pool, actor.tenantId);
  const values: unknown[] = [seq];
  const where: string[] = [];
  if (input.search) where.push(`j.name ILIKE $${values.push(likePattern(input.search))}`);
  if (after) where.push(`(j.created_at, j.id) < ($${values.push(after.t)}::timestamptz, $${values.push(after.id)})`);
  const ids = jobPageSql('$1', input.status, where, `$${values.push(input.limit + 1)}`);
  const { rows } = await deps.pool.query<JobRow & { recent: RecentOutcome[] | null }>(
    `WITH page AS (
       ${JOB_SELECT} JOIN (${ids}) pg ON pg.id = j.id
     )
     SELECT p.*, act.recent
       FROM page p
       LEFT JOIN LATERAL (
         SELECT json_agg(json_build_object('id', r.id, 'status', r.status,
                         'scheduledTime', to_char(r.scheduled_time AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
                         ORDER BY r.scheduled_time DESC, r.id DESC) AS recent
           FROM (SELECT r.id, r.status, r.scheduled_time
                   FROM runs r
                  WHERE r.job_id = p.id AND r.scheduled_time <= now()
                  ORDER BY r.scheduled_time DESC, r.id DESC
                  LIMIT ${SPARKLINE_RUNS}) r
       ) act ON true
      ORDER BY p.created_at DESC, p.id DESC`,
    values,
  );
  const page = toPage(
    'jobs',
    rows,
    input.limit,
    (r) => ({ t: r.sort_ts, id: r.id }),
    (r) => ({ ...toJobView(r), recent: r.recent ?? [] }),
  );
  // One statement (one snapshot): the stored statuses, and the jobs stored `completed` but shown
  // `active` — one-offs whose run is still open (jobStatusSql).
  const { rows: counts } = await deps.pool.query<{ status: JobView['status'] | 'in_flight'; n: number }>(
    `SELECT j.status::text AS status, count(*)::int AS n FROM jobs j WHERE ${tenantJobsSql('$1').join(' AND ')} GROUP BY j.status
     UNION ALL
     SELECT 'in_flight', count(*)::int FROM jobs j
      WHERE ${[...tenantJobsSql('$1'), "j.status = 'completed'", ...inFlightSql()].join(' AND ')}`,
    [seq],
  );
  const by = Object.fromEntries(counts.map((c) => [c.status, c.n])) as Partial<
    Record<JobView['status'] | 'in_flight', number>
  >;
  const moved = by.in_flight ?? 0;
  return {
    ...page,
    counts: {
      all: (by.active ?? 0) + (by.paused ?? 0) + (by.completed ?? 0),
      active: (by.active ?? 0) + moved,
      paused: by.paused ?? 0,
      completed: (by.completed ?? 0) - moved,
    },
  };
}
