// One page of a tenant's live jobs, newest first (created_at DESC, id DESC): the ids only, for
// JOB_SELECT to render. Shared by the API's list and the dashboard's jobs table.
//
// The jobs indexes lead with the tenant's compact number (tenants.seq, copied into
// jobs.tenant_seq), not its text id; the one list index is (tenant_seq, status, created_at
// DESC). A status filter is one range of it (ties on created_at, as jobs created by one batch
// have, are ordered by id in an incremental sort). Without one, each status is its own range
// and the three are merged in order (a Merge Append of three LIMITed index scans): PostgreSQL
// 15 would otherwise read the tenant's whole index and sort it. A job stored `completed` whose
// scheduled run is still open (a one-off in flight) is shown `active` (jobStatusSql): the
// `active` filter merges those in, the `completed` filter leaves them out.
import { JOB_STATUSES, type JobStatus } from '@belfry/core';
import { scheduledRunOpen } from '@belfry/db';
import type { Queryable } from '../sql/tx';

/**
 * The tenant's compact number (-1, matching no job, for a tenant that does not exist). Looked
 * up on its own rather than in a subquery, so the planner sees the value it filters on (an
 * InitPlan's value is unknown when planning, and a tenant holding most jobs then gets a
 * sequential scan).
 */
export async function tenantSeq(db: Queryable, tenantId: string): Promise<number> {
  const { rows } = await db.query<{ seq: number }>('SELECT seq FROM tenants WHERE id = $1', [tenantId]);
  return rows[0]?.seq ?? -1;
}

/**
 * Conditions selecting the tenant's live jobs (alias j) by the indexed tenant_seq alone (the
 * trigger keeps it equal to the tenant's seq), so counts and sums stay index-only scans.
 * `seqParam` is the SQL parameter holding tenantSeq().
 */
export function tenantJobsSql(seqParam: string): string[] {
  return [`j.tenant_seq = ${seqParam}`, 'j.deleted_at IS NULL'];
}

/**
 * SQL answering (id, created_at) of one page of the tenant whose seq is in `seqParam`. `conditions` are extra filters on `j` whose
 * parameters the caller has numbered already (name, cursor); `limitParam` is the LIMIT's.
 */
export function jobPageSql(
  seqParam: string,
  status: JobStatus | undefined,
  conditions: readonly string[],
  limitParam: string,
): string {
  const branch = (s: JobStatus, ...more: string[]): string => {
    // A literal, not a parameter: each branch must name its own range of the index.
    if (!JOB_STATUSES.includes(s)) throw new Error(`not a job status: ${s}`);
    const where = [...tenantJobsSql(seqParam), `j.status = '${s}'`, ...more, ...conditions];
    return `SELECT j.id, j.created_at FROM jobs j WHERE ${where.join(' AND ')}
             ORDER BY j.created_at DESC, j.id DESC LIMIT ${limitParam}`;
  };
  const merged = (branches: string[]): string =>
    `SELECT b.id, b.created_at FROM (${branches.map((b) => `(${b})`).join(' UNION ALL ')}) b
      ORDER BY b.created_at DESC, b.id DESC LIMIT ${limitParam}`;
  // The status shown (jobStatusSql) differs from the stored one only for jobs stored
  // `completed` with a scheduled run open: shown `active`.
  if (status === 'active') return merged([branch('active'), branch('completed', ...inFlightSql())]);
  if (status === 'completed') return branch('completed', `NOT ${scheduledRunOpen('j.id')}`);
  if (status !== undefined) return branch(status);
  return merged(JOB_STATUSES.map((s) => branch(s)));
}

/**
 * Conditions on a job `j` stored `completed` that is shown `active`: a scheduled run of it is
 * open. The job is looked for among open_runs' jobs first (a semi-join PostgreSQL may drive from
 * either side), so a tenant's many finished one-offs are not each probed one by one.
 */
export function inFlightSql(): string[] {
  return ['j.id IN (SELECT l.job_id FROM open_runs l)', scheduledRunOpen('j.id')];
}
