-- Completions as HOT updates (issue 16, ask 5): the open runs listed in a narrow table of their
-- own, as the running ones are since 20261202000000.
--
-- A completion sets finished_at. runs_open_idx (job_id) WHERE finished_at IS NULL had it in its
-- predicate and runs_dead_idx as a key, and PostgreSQL counts both as indexed columns: no
-- completion was ever a HOT (heap-only) update, and each wrote a new entry into every index of
-- runs (the primary key, runs_job_occurrence_key, runs_tenant_idx). Measured on a 20,000-run herd
-- (PostgreSQL 18.4, pg_stat_statements): without those two indexes the completion statement
-- touches 12.5 instead of 27 shared buffers per run and writes 1,030 instead of 1,520 bytes of WAL.
--
-- * open_runs lists every run with finished_at IS NULL, one narrow row each, keyed by job: the
--   run's inserters (insert-scheduled-runs, run-enqueue) list it in the statement that inserts
--   it, and every ender unlists it in the statement that ends it. Readers of a job's open runs
--   go through it and judge each run by its own row (finished_at IS NULL): a row an ender did
--   not remove (a process of the previous version, history trimmed by retention) is harmless,
--   and the reaper sweeps such rows out. A finished run is never reopened (a replay is a new run).
-- * The dead letter's index is keyed by dead_at, which is set with finished_at, to the same
--   now(), only when a run goes dead; its readers order by dead_at.
--
-- Runs open at the upgrade are listed here. Engines and API processes of the previous version do
-- not list the runs they insert: stop them before starting this version's (docs/operations.md).
-- 10 s at most to get the tables' locks, else the migration fails and rolls back cleanly.
SET LOCAL lock_timeout = '10s';

-- Every lock runs needs here, first: no run is inserted between the listing and the index drops.
LOCK TABLE runs IN ACCESS EXCLUSIVE MODE;

CREATE TABLE open_runs (
  job_id         text NOT NULL,
  scheduled_time timestamptz NOT NULL,
  run_id         text NOT NULL,
  PRIMARY KEY (job_id, scheduled_time, run_id)
) WITH (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 5000);
INSERT INTO open_runs (job_id, scheduled_time, run_id)
  SELECT job_id, scheduled_time, id FROM runs WHERE finished_at IS NULL;
ANALYZE open_runs;

DROP INDEX runs_open_idx;
DROP INDEX runs_dead_idx;
CREATE INDEX runs_dead_idx ON runs (tenant_id, dead_at DESC, id DESC) WHERE dead_at IS NOT NULL;

-- belfry_complete_finished_jobs (20261202030000) with the open-run test of a job's whole schedule
-- through open_runs (its runs' ids and times as arrays: probes by primary key in the partitions
-- they name, as openRunOf in packages/db/src/sql/open-runs.ts); otherwise unchanged.
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
                           WHERE r.id = ANY (ARRAY(SELECT l.run_id FROM open_runs l WHERE l.job_id = j.id))
                             AND r.scheduled_time = ANY (ARRAY(SELECT l.scheduled_time FROM open_runs l WHERE l.job_id = j.id))
                             AND r.trigger = 'schedule' AND r.finished_at IS NULL OFFSET 0)
       END
    RETURNING j.id;
END
$$;
