-- selectExpiredRuns (packages/db/src/sql/select-expired-runs.ts) as a function, so that its plan
-- is kept per connection: the reaper asks every couple of seconds on every node, and planning
-- the statement — a merge of every daily partition of `runs` through its lease index, joined to
-- jobs and engine_nodes — cost far more than running it (pg_stat_statements, 20,000-run quick
-- herd: 143 of 155 us per run were planning). The generic plan is forced, as for
-- belfry_complete_finished_jobs: it reads each partition's runs_lease_idx in lease order and
-- stops at the limit (the custom plans read small partitions sequentially and sorted).
CREATE OR REPLACE FUNCTION belfry_select_expired_runs(lim integer, docker_engine_id text, container_hold_seconds integer)
RETURNS TABLE (
  id text, scheduled_time timestamptz, tenant_id text, job_id text, priority text, attempt integer,
  worker_id text, retry_max_attempts integer, retry_initial_delay_seconds integer,
  retry_max_delay_seconds integer, target_type text, target_queue text, worker_docker_engine text,
  db_now timestamptz
)
LANGUAGE plpgsql VOLATILE
SET plan_cache_mode = force_generic_plan
AS $$
BEGIN
  RETURN QUERY
    SELECT r.id, r.scheduled_time, r.tenant_id, r.job_id, r.priority, r.attempt, r.worker_id,
           j.retry_max_attempts, j.retry_initial_delay_seconds, j.retry_max_delay_seconds,
           j.target->>'type', j.target->>'queue', n.stats->'containers'->>'engineId', now()
      FROM runs r JOIN jobs j ON j.id = r.job_id
      LEFT JOIN engine_nodes n ON n.id = r.worker_id AND j.target->>'type' = 'container'
     WHERE r.status = 'running' AND r.lease_expires_at < now()
       AND (j.target->>'type' IS DISTINCT FROM 'container'
            OR r.lease_expires_at < now() - make_interval(secs => j.timeout_seconds + container_hold_seconds)
            OR n.stats->'containers'->>'engineId' = docker_engine_id)
     ORDER BY r.lease_expires_at
     LIMIT lim
     FOR UPDATE OF r SKIP LOCKED;
END
$$;
