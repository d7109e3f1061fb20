-- completeFinishedJobs (packages/db/src/sql/complete-finished-jobs.ts) as a function: the same
-- two statements (lock the candidates; then, with a fresh snapshot, complete those with no open
-- scheduled run), in one round trip, and with plans kept per connection. The open-run check
-- looks at every partition of `runs` (a job's runs are not keyed by time), and planning that
-- anew on every call cost more than running it — on every finished run. Generic plans are
-- forced: left to choose, PostgreSQL keeps planning each call (a one-element array looks
-- cheaper to it than the generic plan's guess), which is the cost this function is for.
CREATE OR REPLACE FUNCTION belfry_complete_finished_jobs(job_ids text[]) RETURNS SETOF text
LANGUAGE plpgsql VOLATILE
SET plan_cache_mode = force_generic_plan
AS $$
DECLARE
  candidates text[];
BEGIN
  SELECT array_agg(c.id) INTO candidates
    FROM (SELECT j.id FROM jobs j
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
     WHERE j.id = ANY(candidates) AND j.status = 'active'
       AND NOT EXISTS (SELECT 1 FROM schedule_entries e WHERE e.job_id = j.id OFFSET 0)
       AND NOT EXISTS (SELECT 1 FROM runs r
                        WHERE r.job_id = j.id AND r.trigger = 'schedule'
                          AND r.status IN ('pending', 'running', 'failed') OFFSET 0)
    RETURNING j.id;
END
$$;
