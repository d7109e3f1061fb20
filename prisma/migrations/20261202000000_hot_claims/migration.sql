-- Claims and lease renewals as HOT updates (issue 16, ask 5).
--
-- A claim (pending → running: status, attempt, worker, lease, start times) and every lease
-- renewal rewrote the run row with a new entry in every index of `runs`: `status` was in the
-- predicates of runs_open_idx, runs_lease_idx and runs_dead_idx, and `lease_expires_at` a key of
-- runs_lease_idx — PostgreSQL counts predicate columns as indexed, so no such update was ever a
-- HOT (heap-only) update. Measured on a copy (PostgreSQL 15, 20,000 pending runs, 2,858 claimed by
-- one UPDATE like the claim's): 19 shared buffers and 927 B of WAL per claimed run; with no index
-- on the columns a claim changes and room on the page, 2.5 buffers and 136 B, four times faster.
-- So no index of `runs` now refers to a column a claim or a renewal changes:
--
-- * Open runs (pending, running, waiting for a retry) are those with finished_at IS NULL: every
--   writer sets finished_at exactly when a run reaches a final state (succeeded, dead, cancelled,
--   skipped), and only then. Queries for open runs say `finished_at IS NULL`, which matches this
--   index; their status tests stay as filters.
-- * The dead letter's index holds the runs with a dead_at, set (to the run's finished_at) only
--   when a run goes dead, and cleared when it is discarded from the dead letter (cancelled).
--   Its keys stay (tenant, finished_at, id): the claim changes neither.
-- * Running runs are listed in running_runs, one narrow row each: the claimers (claim-runs,
--   claim-pull-runs) insert it in the statement that claims, the enders delete it, and the
--   reaper reads it to find expired leases (joining each run by primary key: in-flight runs
--   only, thousands at most) and sweeps out rows whose run has finished. A row for a run that is
--   not running (an ender that did not delete it) is harmless — the reaper's join checks the
--   run's own status — but a running run without a row would never be reaped: only the claimers
--   set 'running', and they always insert.
-- * Every partition of runs keeps room on each page for the claim's new row version (fillfactor
--   70): a HOT update needs it on the same page. For the existing partitions only pages written
--   from now on are affected; the daily partitions created from now on have it from the start.
--
-- Runs in flight at the upgrade get their running_runs rows here (found through the old lease
-- index, before it is dropped). Engines of the previous version do not insert them: stop them
-- before starting this version's (docs/operations.md), as for 20261201120400.
--
-- 10 s at most to get the tables' locks, else the migration fails and rolls back cleanly.
SET LOCAL lock_timeout = '10s';

CREATE TABLE running_runs (
  run_id         text NOT NULL,
  scheduled_time timestamptz NOT NULL,
  PRIMARY KEY (run_id, scheduled_time)
) WITH (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 5000);
INSERT INTO running_runs (run_id, scheduled_time)
  SELECT id, scheduled_time FROM runs WHERE status = 'running';

ALTER TABLE runs ADD COLUMN dead_at timestamptz;
UPDATE runs SET dead_at = finished_at WHERE status = 'dead' AND dead_at IS NULL;

DROP INDEX runs_lease_idx;
DROP INDEX runs_dead_idx;
DROP INDEX runs_open_idx;
CREATE INDEX runs_open_idx ON runs (job_id) WHERE finished_at IS NULL;
CREATE INDEX runs_dead_idx ON runs (tenant_id, finished_at DESC, id DESC) WHERE dead_at IS NOT NULL;

DO $$
DECLARE
  part record;
BEGIN
  FOR part IN SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
               WHERE i.inhparent = 'runs'::regclass LOOP
    EXECUTE format('ALTER TABLE %I SET (fillfactor = 70)', part.relname);
  END LOOP;
END
$$;

-- belfry_ensure_history_partitions (20261129000000), creating the runs partitions with that room.
CREATE OR REPLACE FUNCTION belfry_ensure_history_partitions(from_day date, to_day date) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
  d       date := from_day;
  created integer := 0;
  lo      timestamptz;
  hi      timestamptz;
  tbl     text;
BEGIN
  WHILE d <= to_day LOOP
    lo := d::timestamp AT TIME ZONE 'UTC';
    hi := (d + 1)::timestamp AT TIME ZONE 'UTC';
    FOREACH tbl IN ARRAY ARRAY['runs', 'run_attempts'] LOOP
      IF to_regclass(format('%I', tbl || '_' || to_char(d, 'YYYYMMDD'))) IS NULL THEN
        EXECUTE format('CREATE TABLE %I PARTITION OF %I FOR VALUES FROM (%L) TO (%L)%s',
                       tbl || '_' || to_char(d, 'YYYYMMDD'), tbl, lo, hi,
                       CASE WHEN tbl = 'runs' THEN ' WITH (fillfactor = 70)' ELSE '' END);
        created := created + 1;
      END IF;
    END LOOP;
    d := d + 1;
  END LOOP;
  RETURN created;
END;
$$;

-- belfry_complete_finished_jobs (20261201120200) with the open-run test that matches the new
-- runs_open_idx; otherwise unchanged.
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
           WHERE j.id = ANY(job_ids) AND j.status = 'active'
             AND CASE WHEN j.schedule_type = 'once' THEN true
                      ELSE NOT EXISTS (SELECT 1 FROM schedule_entries e WHERE e.job_id = j.id OFFSET 0) END
           ORDER BY j.id
             FOR NO KEY UPDATE OF j) c;
  IF candidates IS NULL THEN
    RETURN;
  END IF;
  -- A new statement: a fresh snapshot, which sees what the lock waited for.
  RETURN QUERY
    UPDATE jobs j SET status = 'completed', updated_at = now()
     WHERE j.ctid = ANY(tids) AND j.id = ANY(candidates) AND j.status = 'active'
       AND NOT EXISTS (SELECT 1 FROM schedule_entries e WHERE e.job_id = j.id OFFSET 0)
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
