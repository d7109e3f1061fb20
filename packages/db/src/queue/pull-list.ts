// One page of a tenant's pull queues, by name, for `GET /api/v1/queues` and the dashboard's
// Queues page: every queue a live job targets, that holds waiting messages, that has claimed
// runs or that a worker asked, with what waits (pg-boss `p.<tenant>.<queue>` messages in the
// states before 'active'), what is claimed (running runs of jobs targeting it) and the last claim.
//
// Paged in SQL so the answer stays bounded whatever the tenant's history holds: each source
// yields at most `limit` names after the cursor in index order (jobs_pull_queue_idx, probed
// once per distinct name; pull_workers' key; pgboss.queue's key), the page is cut from their
// union, and only the page's queues are counted. Claimed runs are found from the list of running
// runs (running_runs, every tenant's: thousands at most), never by reading the tenant's finished
// ones. Names sort in the database's collation (C for the embedded PostgreSQL: byte order).
import type { Queryable } from '../sql/types';
import { lanePrefix } from './names';

export interface PullQueueRow {
  name: string;
  /** messages waiting, due now or later */
  waiting: number;
  /** of those, the ones due now */
  due: number;
  /** runs claimed and not yet completed */
  claimed: number;
  /** the last claim that handed any worker a run of this queue */
  last_claim_at: Date | null;
}

export interface PullQueuePageInput {
  tenantId: string;
  /** the tenant's compact number (tenants.seq) that jobs are indexed by */
  tenantSeq: number;
  /** the last name of the previous page; '' for the first */
  after: string;
  /** rows to answer at most (a caller asks one more than it shows, to tell another page exists) */
  limit: number;
}

/** LIKE pattern matching the names that start with `prefix` (tenant ids hold `_`). */
function likePrefix(prefix: string): string {
  return `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

export async function pullQueuePage(db: Queryable, input: PullQueuePageInput): Promise<PullQueueRow[]> {
  const prefix = `${lanePrefix('pull')}${input.tenantId}.`;
  const { rows } = await db.query<PullQueueRow>(
    `WITH RECURSIVE running AS (
       -- one row per claimed run, named by the queue its job targets now
       SELECT (SELECT j.target->>'queue' FROM jobs j WHERE j.id = r.job_id AND j.target->>'type' = 'pull') AS name
         FROM running_runs x JOIN runs r ON r.id = x.run_id AND r.scheduled_time = x.scheduled_time
        WHERE r.tenant_id = $1 AND r.status = 'running'
     ), job_names(name) AS (
       -- the next distinct name, one index probe each (a loose index scan): DISTINCT would read
       -- every job of a queue with 100,000 jobs to find the name after it
       (SELECT j.target->>'queue' FROM jobs j
         WHERE j.tenant_seq = $2 AND j.deleted_at IS NULL AND j.target->>'type' = 'pull'
           AND j.target->>'queue' > $5
         ORDER BY 1 LIMIT 1)
       UNION ALL
       SELECT (SELECT j.target->>'queue' FROM jobs j
                WHERE j.tenant_seq = $2 AND j.deleted_at IS NULL AND j.target->>'type' = 'pull'
                  AND j.target->>'queue' > p.name
                ORDER BY 1 LIMIT 1)
         FROM job_names p WHERE p.name IS NOT NULL
     ), names AS (
       SELECT name FROM (
         (SELECT name FROM job_names WHERE name IS NOT NULL LIMIT $6)
         UNION
         (SELECT DISTINCT w.queue FROM pull_workers w
           WHERE w.tenant_id = $1 AND w.queue > $5
           ORDER BY 1 LIMIT $6)
         UNION
         (SELECT substr(q.name, length($3) + 1) FROM pgboss.queue q
           WHERE q.name LIKE $4 AND q.name > $3 || $5
             AND EXISTS (SELECT 1 FROM pgboss.job m WHERE m.name = q.name AND m.state IN ('created', 'retry'))
           ORDER BY q.name LIMIT $6)
         UNION
         (SELECT name FROM running WHERE name > $5)
       ) n
       ORDER BY name LIMIT $6
     )
     SELECT n.name, d.waiting, d.due, COALESCE(c.claimed, 0) AS claimed, l.last_claim_at
       FROM names n
       CROSS JOIN LATERAL (
         SELECT count(*)::int AS waiting, count(*) FILTER (WHERE m.start_after <= now())::int AS due
           FROM pgboss.job m WHERE m.name = $3 || n.name AND m.state IN ('created', 'retry')) d
       CROSS JOIN LATERAL (
         SELECT max(w.last_claim_at) AS last_claim_at FROM pull_workers w
          WHERE w.tenant_id = $1 AND w.queue = n.name) l
       LEFT JOIN (SELECT name, count(*)::int AS claimed FROM running GROUP BY name) c ON c.name = n.name
      ORDER BY n.name`,
    [input.tenantId, input.tenantSeq, prefix, likePrefix(prefix), input.after, input.limit],
  );
  return rows;
}
