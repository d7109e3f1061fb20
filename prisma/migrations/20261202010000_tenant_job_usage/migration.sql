-- The tenant's job usage kept on its row (issue 16 ask 3): the job quota checks (maxJobs,
-- maxRunsPerMinute: every create, batch, resume and schedule change) and GET /limits read three
-- counters instead of counting the tenant's jobs, which cost a pass over every jobs_tenant_status_idx
-- entry of the tenant (and the heap of rows not yet all-visible) on each batch: a tenant at 100,000
-- jobs paid ~50 ms of PostgreSQL per batch request for it, growing with the tenant.
--
--   job_count       live jobs (deleted_at IS NULL), whatever their status
--   scheduled_rate  sum of runs_per_minute over live active jobs; numeric, so that a job's rate
--                   added and later taken away cancels exactly (float8 sums would drift)
--   unrated_jobs    live jobs whose runs_per_minute is unknown (rows older than the column); the
--                   API computes those rates when it finds any, as before
--
-- Triggers keep them right for every writer of jobs, whatever columns it names: one statement-level
-- trigger per INSERT or DELETE statement (a batch of 1,000 jobs updates the tenant row once), and a
-- row trigger on UPDATE whose WHEN lets through only rows whose contribution changes (the engine
-- completing a one-off job, rate 0, never touches the tenant row). The counter update holds the
-- tenant row's FOR NO KEY UPDATE lock to the end of the transaction, the lock the quota checks take:
-- checks and writers stay serialised per tenant, as when the checks locked it themselves.
SET LOCAL lock_timeout = '10s';

ALTER TABLE tenants
  ADD COLUMN job_count integer NOT NULL DEFAULT 0,
  ADD COLUMN scheduled_rate numeric NOT NULL DEFAULT 0,
  ADD COLUMN unrated_jobs integer NOT NULL DEFAULT 0;

CREATE FUNCTION belfry_jobs_usage_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE tenants t
     SET job_count = t.job_count + d.jobs, scheduled_rate = t.scheduled_rate + d.rate,
         unrated_jobs = t.unrated_jobs + d.unrated
    FROM (SELECT n.tenant_id, count(*)::int AS jobs,
                 COALESCE(sum(n.runs_per_minute::numeric) FILTER (WHERE n.status = 'active'), 0) AS rate,
                 count(*) FILTER (WHERE n.runs_per_minute IS NULL)::int AS unrated
            FROM new_jobs n WHERE n.deleted_at IS NULL GROUP BY n.tenant_id) d
   WHERE t.id = d.tenant_id;
  RETURN NULL;
END
$$;

CREATE FUNCTION belfry_jobs_usage_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE tenants t
     SET job_count = t.job_count - d.jobs, scheduled_rate = t.scheduled_rate - d.rate,
         unrated_jobs = t.unrated_jobs - d.unrated
    FROM (SELECT o.tenant_id, count(*)::int AS jobs,
                 COALESCE(sum(o.runs_per_minute::numeric) FILTER (WHERE o.status = 'active'), 0) AS rate,
                 count(*) FILTER (WHERE o.runs_per_minute IS NULL)::int AS unrated
            FROM old_jobs o WHERE o.deleted_at IS NULL GROUP BY o.tenant_id) d
   WHERE t.id = d.tenant_id;
  RETURN NULL;
END
$$;

CREATE FUNCTION belfry_jobs_usage_update() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  old_live int := CASE WHEN OLD.deleted_at IS NULL THEN 1 ELSE 0 END;
  new_live int := CASE WHEN NEW.deleted_at IS NULL THEN 1 ELSE 0 END;
  old_rate numeric := CASE WHEN OLD.deleted_at IS NULL AND OLD.status = 'active'
                           THEN COALESCE(OLD.runs_per_minute::numeric, 0) ELSE 0 END;
  new_rate numeric := CASE WHEN NEW.deleted_at IS NULL AND NEW.status = 'active'
                           THEN COALESCE(NEW.runs_per_minute::numeric, 0) ELSE 0 END;
  old_unrated int := CASE WHEN OLD.deleted_at IS NULL AND OLD.runs_per_minute IS NULL THEN 1 ELSE 0 END;
  new_unrated int := CASE WHEN NEW.deleted_at IS NULL AND NEW.runs_per_minute IS NULL THEN 1 ELSE 0 END;
BEGIN
  IF OLD.tenant_id = NEW.tenant_id THEN
    UPDATE tenants SET job_count = job_count + new_live - old_live, scheduled_rate = scheduled_rate + new_rate - old_rate,
                       unrated_jobs = unrated_jobs + new_unrated - old_unrated
     WHERE id = NEW.tenant_id;
  ELSE
    UPDATE tenants SET job_count = job_count - old_live, scheduled_rate = scheduled_rate - old_rate,
                       unrated_jobs = unrated_jobs - old_unrated
     WHERE id = OLD.tenant_id;
    UPDATE tenants SET job_count = job_count + new_live, scheduled_rate = scheduled_rate + new_rate,
                       unrated_jobs = unrated_jobs + new_unrated
     WHERE id = NEW.tenant_id;
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER jobs_usage_insert AFTER INSERT ON jobs REFERENCING NEW TABLE AS new_jobs
  FOR EACH STATEMENT EXECUTE FUNCTION belfry_jobs_usage_insert();
CREATE TRIGGER jobs_usage_delete AFTER DELETE ON jobs REFERENCING OLD TABLE AS old_jobs
  FOR EACH STATEMENT EXECUTE FUNCTION belfry_jobs_usage_delete();
-- Only rows whose contribution to the counters changes (the expressions of the function above).
CREATE TRIGGER jobs_usage_update AFTER UPDATE OF tenant_id, status, deleted_at, runs_per_minute ON jobs
  FOR EACH ROW WHEN (
    OLD.tenant_id IS DISTINCT FROM NEW.tenant_id
    OR (OLD.deleted_at IS NULL) IS DISTINCT FROM (NEW.deleted_at IS NULL)
    OR (OLD.runs_per_minute IS NULL) IS DISTINCT FROM (NEW.runs_per_minute IS NULL)
    OR (CASE WHEN OLD.status = 'active' THEN COALESCE(OLD.runs_per_minute, 0) ELSE 0 END)
       IS DISTINCT FROM (CASE WHEN NEW.status = 'active' THEN COALESCE(NEW.runs_per_minute, 0) ELSE 0 END)
  ) EXECUTE FUNCTION belfry_jobs_usage_update();

-- The counters of the jobs already there. The triggers above hold jobs' SHARE ROW EXCLUSIVE lock
-- until this migration commits: no job is written between this count and the triggers taking over.
UPDATE tenants t
   SET job_count = u.jobs, scheduled_rate = u.rate, unrated_jobs = u.unrated
  FROM (SELECT j.tenant_id, count(*)::int AS jobs,
               COALESCE(sum(j.runs_per_minute::numeric) FILTER (WHERE j.status = 'active'), 0) AS rate,
               count(*) FILTER (WHERE j.runs_per_minute IS NULL)::int AS unrated
          FROM jobs j WHERE j.deleted_at IS NULL GROUP BY j.tenant_id) u
 WHERE t.id = u.tenant_id;
