-- Limits (docs/limits.md): what one tenant may take of what all tenants share. Enforced by the
-- API when a job is created, changed or resumed, a key created, a workspace created.
ALTER TABLE tenants
  ADD COLUMN max_jobs integer NOT NULL DEFAULT 100000 CHECK (max_jobs >= 0),
  ADD COLUMN max_runs_per_minute integer NOT NULL DEFAULT 60000 CHECK (max_runs_per_minute >= 0),
  ADD COLUMN max_api_keys integer NOT NULL DEFAULT 100 CHECK (max_api_keys >= 0);

ALTER TABLE users ADD COLUMN max_workspaces integer NOT NULL DEFAULT 10 CHECK (max_workspaces >= 0);

-- A job's scheduled occurrences per minute (@belfry/core runsPerMinute), kept with the job so a
-- tenant's total is one index-only sum. NULL: not computed yet (cron jobs created before this
-- migration); the API fills those in before it first sums a tenant's jobs.
ALTER TABLE jobs ADD COLUMN runs_per_minute double precision;
UPDATE jobs SET runs_per_minute = CASE schedule_type
    WHEN 'once' THEN 0
    WHEN 'interval' THEN 60.0 / every_seconds
  END
 WHERE schedule_type IN ('once', 'interval');

CREATE INDEX jobs_tenant_active_rate_idx ON jobs (tenant_id) INCLUDE (runs_per_minute)
  WHERE deleted_at IS NULL AND status = 'active';
