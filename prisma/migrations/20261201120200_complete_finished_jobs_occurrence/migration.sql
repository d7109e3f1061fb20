-- belfry_complete_finished_jobs (20261201022000) with a cheaper open-run check for one-offs.
-- The check probed the open runs of every daily partition of `runs` (one index probe each: the
-- job's runs are not keyed by time), about 60 % of the function's buffers in a one-off herd and
-- growing with retention. A one-off whose schedule never changed (version 1: every change of
-- a job bumps its version, and only a PATCH changes run_at or schedule_type) has scheduled runs
-- only at its run_at (runs_occurrence_key: at most one), so its check is that one occurrence,
-- one probe of one partition (pruned at run time by the job's run_at). Every other job keeps
-- the check over every partition: a one-off that was rescheduled (or paused, changed and
-- resumed) may still have an open run of its earlier schedule, which a PATCH leaves to finish,
-- and a recurring job whose schedule ended has runs at many times. CASE evaluates only the
-- branch it takes, so each job pays for one of the two checks. The UPDATE finds the rows the
-- first statement locked by their ctid (of the locked, latest version: nothing else can change
-- a row this transaction holds locked), one heap read instead of another descent of jobs_pkey;
-- the ids stay a condition as well.
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
             AND NOT EXISTS (SELECT 1 FROM schedule_entries e WHERE e.job_id = j.id OFFSET 0)
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
                           WHERE r.job_id = j.id AND r.scheduled_time = j.run_at AND r.trigger = 'schedule'
                             AND r.status IN ('pending', 'running', 'failed') OFFSET 0)
         ELSE NOT EXISTS (SELECT 1 FROM runs r
                           WHERE r.job_id = j.id AND r.trigger = 'schedule'
                             AND r.status IN ('pending', 'running', 'failed') OFFSET 0)
       END
    RETURNING j.id;
END
$$;
