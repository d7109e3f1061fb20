-- The jobs usage trigger (20261202010000) for updates fired also for jobs already deleted: a
-- deleted recurring job whose last run finished (active → completed, its rate no longer counted)
-- passed the WHEN clause though it counts nowhere, and the engine's completion transaction then
-- updated, and held locked to its commit, the tenant's row — by +0. Now the clause lets through
-- exactly the rows whose contribution changes (the function's expressions), and the function
-- writes nothing when every difference is zero.
SET LOCAL lock_timeout = '10s';

CREATE OR REPLACE FUNCTION belfry_jobs_usage_update() RETURNS trigger LANGUAGE plpgsql AS $$
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
    IF new_live <> old_live OR new_rate <> old_rate OR new_unrated <> old_unrated THEN
      UPDATE tenants SET job_count = job_count + new_live - old_live, scheduled_rate = scheduled_rate + new_rate - old_rate,
                         unrated_jobs = unrated_jobs + new_unrated - old_unrated
       WHERE id = NEW.tenant_id;
    END IF;
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

DROP TRIGGER jobs_usage_update ON jobs;
-- Only rows whose contribution to the counters changes: a deleted job (before and after)
-- contributes nothing, whatever else changes on it.
CREATE TRIGGER jobs_usage_update AFTER UPDATE OF tenant_id, status, deleted_at, runs_per_minute ON jobs
  FOR EACH ROW WHEN (
    OLD.tenant_id IS DISTINCT FROM NEW.tenant_id
    OR (OLD.deleted_at IS NULL) IS DISTINCT FROM (NEW.deleted_at IS NULL)
    OR (OLD.deleted_at IS NULL AND (
          (OLD.runs_per_minute IS NULL) IS DISTINCT FROM (NEW.runs_per_minute IS NULL)
          OR (CASE WHEN OLD.status = 'active' THEN COALESCE(OLD.runs_per_minute, 0) ELSE 0 END)
             IS DISTINCT FROM (CASE WHEN NEW.status = 'active' THEN COALESCE(NEW.runs_per_minute, 0) ELSE 0 END)))
  ) EXECUTE FUNCTION belfry_jobs_usage_update();
