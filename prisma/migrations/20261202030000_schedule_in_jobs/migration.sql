-- The schedule entry folded into the jobs row (issue 16 ask 4: bytes per stored job).
--
-- A job's next occurrence was a row of its own in schedule_entries (job id, partition,
-- next_run_at: a 77-byte heap row, a 38-byte hash index entry for the one-entry-per-job
-- constraint and a 40-byte due index entry) beside the jobs row, which already holds the
-- partition. Now it is jobs.next_run_at, set exactly while the job is active and has an
-- occurrence ahead of it (what a schedule_entries row meant), and the due scan reads
-- jobs_due_idx (partition, next_run_at), a partial index of the jobs that have one: −110 bytes
-- per job, and the scan reaches each due job's row straight from the index instead of through a
-- descent of jobs_pkey per entry. The cost is on every advance: an update of the wider jobs row
-- (never HOT, next_run_at being indexed) that adds an entry to each of its indexes.
--
-- jobs.created_by goes too: written at creation, never read (the audit log's job.created entry
-- names who created the job, with the API key or user id).
--
-- And jobs_tenant_status_idx is rebuilt: without its INCLUDE (runs_per_minute), there for the
-- quota checks' sum of rates, which read the tenant's counters since 20261202010000 (8 bytes less
-- per entry), and on created_at ascending. The lists still read it newest first (a backward
-- scan), but jobs are created in ascending created_at, and a new entry in a descending index
-- went in at the front of its (tenant, status) range, where every page split left two half-full
-- pages (~56 bytes per job for jobs created one by one); at the end of its range, PostgreSQL
-- splits a full page where the ascending run of insertions is, and the pages stay full (~32).
--
-- The table is rewritten once (every job with an entry gets its next_run_at), under a lock that
-- makes readers and writers of jobs wait; 10 s at most to get it. Run `VACUUM jobs` afterwards.
SET LOCAL lock_timeout = '10s';

ALTER TABLE jobs ADD COLUMN next_run_at timestamptz;
UPDATE jobs j SET next_run_at = e.next_run_at FROM schedule_entries e WHERE e.job_id = j.id;
ALTER TABLE jobs DROP COLUMN created_by;
CREATE INDEX jobs_due_idx ON jobs (partition, next_run_at) WHERE next_run_at IS NOT NULL;
DROP INDEX jobs_tenant_status_idx;
CREATE INDEX jobs_tenant_status_idx ON jobs (tenant_seq, status, created_at) WHERE deleted_at IS NULL;
DROP TABLE schedule_entries;

-- belfry_complete_finished_jobs (20261202000000) with the entry read from the job's own row: a
-- job with a next occurrence is never completed, and the lock is taken only on jobs without one.
CREATE OR REPLACE FUNCTION belfry_complete_finished_jobs(job_ids text[]) RETURNS SETOF text
LANGUAGE plpgsql VOLATILE
SET plan_cache_mode = force_generic_plan
AS $$
DECLARE
  candidates text[];
  tids tid[];
BEGIN
  SELECT array_agg(c.id), array_agg(c.ctid) INTO candidates, tids
    FROM (SELECT j.id, j.ctid FROM jobs j
           WHERE j.id = ANY(job_ids) AND j.status = 'active' AND j.next_run_at IS NULL
           ORDER BY j.id
             FOR NO KEY UPDATE OF j) c;
  IF candidates IS NULL THEN
    RETURN;
  END IF;
  -- A new statement: a fresh snapshot, which sees what the lock waited for.
  RETURN QUERY
    UPDATE jobs j SET status = 'completed', updated_at = now()
     WHERE j.ctid = ANY(tids) AND j.id = ANY(candidates) AND j.status = 'active' AND j.next_run_at IS NULL
       AND CASE WHEN j.schedule_type = 'once' AND j.version = 1
         THEN NOT EXISTS (SELECT 1 FROM runs r
                           WHERE r.job_id = j.id AND r.trigger = 'schedule'
                             AND r.scheduled_time BETWEEN date_trunc('milliseconds', j.run_at) AND j.run_at
                             AND r.finished_at IS NULL OFFSET 0)
         ELSE NOT EXISTS (SELECT 1 FROM runs r
                           WHERE r.job_id = j.id AND r.trigger = 'schedule'
                             AND r.finished_at IS NULL OFFSET 0)
       END
    RETURNING j.id;
END
$$;

ANALYZE jobs;
