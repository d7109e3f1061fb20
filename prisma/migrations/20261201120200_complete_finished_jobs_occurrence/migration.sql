-- belfry_complete_finished_jobs (20261201022000), cheaper for one-offs, same contract.
--
-- The open-run check probed the open runs of every daily partition of `runs` (a job's runs are
-- not keyed by time): ~60 % of the function's buffers in a one-off herd, growing with retention.
-- A one-off whose schedule never changed (version 1: every PATCH, pause, resume and delete bumps
-- its version, and only a PATCH changes run_at or schedule_type) has scheduled runs only at its run_at
-- (runs_occurrence_key: at most one), so its check is that one occurrence: one probe of one
-- partition, pruned at run time by the job's run_at. Every other job keeps the check over every
-- partition: a one-off that was rescheduled (or paused, changed and resumed) may still have an
-- open run of its earlier schedule, which a PATCH leaves to finish, and a recurring job whose
-- schedule ended has runs at many times. CASE evaluates only the branch it takes. The occurrence
-- is looked for from run_at truncated to the millisecond: the engine reads times as JavaScript
-- Dates, so a run_at written by hand with microseconds has its run at the millisecond before.
--
-- The first statement only narrows what is locked (a recurring job's row is not locked on every
-- finished run); the UPDATE, with its fresh snapshot, decides. So it no longer looks for a
-- one-off's schedule entry: a one-off with an entry (rescheduled, or a manual run finishing
-- before the occurrence) is locked to no effect. The UPDATE finds the locked rows by their ctid
-- (of the locked, latest version: nothing else can change a row this transaction holds locked),
-- one heap read instead of another descent of jobs_pkey; the ids stay a condition as well.
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
                             AND r.status IN ('pending', 'running', 'failed') OFFSET 0)
         ELSE NOT EXISTS (SELECT 1 FROM runs r
                           WHERE r.job_id = j.id AND r.trigger = 'schedule'
                             AND r.status IN ('pending', 'running', 'failed') OFFSET 0)
       END
    RETURNING j.id;
END
$$;
