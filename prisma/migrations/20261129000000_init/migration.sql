-- Belfry initial schema.
--
-- Hot tables (schedule_entries, partition_leases, pg-boss's queue) stay small. Run history
-- (runs, run_attempts) grows without bound, so both are range-partitioned by the run's
-- scheduled_time, one partition per UTC day: retention drops whole partitions instead of
-- deleting rows. Run ids are ULIDs whose timestamp is the scheduled time, so a lookup by id
-- also knows its partition.

CREATE TABLE belfry_settings (
  key   text PRIMARY KEY,
  value text NOT NULL
);

-- Tenancy and identity -------------------------------------------------------------------

CREATE TABLE tenants (
  id                    text PRIMARY KEY,
  name                  text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 200),
  slug                  text NOT NULL UNIQUE,
  retention_days        integer NOT NULL DEFAULT 30 CHECK (retention_days BETWEEN 1 AND 3650),
  max_concurrency       integer NOT NULL DEFAULT 50 CHECK (max_concurrency BETWEEN 1 AND 100000),
  rate_limit_per_second integer NOT NULL DEFAULT 50 CHECK (rate_limit_per_second > 0),
  rate_limit_burst      integer NOT NULL DEFAULT 100 CHECK (rate_limit_burst > 0),
  created_at            timestamptz NOT NULL DEFAULT now(),
  updated_at            timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE users (
  id            text PRIMARY KEY,
  email         text NOT NULL,
  name          text,
  password_hash text NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX users_email_key ON users (lower(email));

CREATE TABLE memberships (
  tenant_id  text NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  user_id    text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  role       text NOT NULL CHECK (role IN ('owner', 'admin', 'member', 'viewer')),
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, user_id)
);
CREATE INDEX memberships_user_idx ON memberships (user_id);

CREATE TABLE invitations (
  id          text PRIMARY KEY,
  tenant_id   text NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  email       text NOT NULL,
  role        text NOT NULL CHECK (role IN ('admin', 'member', 'viewer')),
  token_hash  bytea NOT NULL UNIQUE,
  invited_by  text REFERENCES users (id) ON DELETE SET NULL,
  expires_at  timestamptz NOT NULL,
  accepted_at timestamptz,
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX invitations_tenant_idx ON invitations (tenant_id, created_at DESC);

-- Only a SHA-256 of the key is stored; `prefix` is the visible start shown in lists.
CREATE TABLE api_keys (
  id           text PRIMARY KEY,
  tenant_id    text NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  name         text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 200),
  prefix       text NOT NULL,
  key_hash     bytea NOT NULL UNIQUE,
  scopes       text[] NOT NULL,
  created_by   text REFERENCES users (id) ON DELETE SET NULL,
  last_used_at timestamptz,
  expires_at   timestamptz,
  revoked_at   timestamptz,
  created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX api_keys_tenant_idx ON api_keys (tenant_id, created_at DESC, id DESC);

-- Webhook signing secrets, AES-256-GCM encrypted with a key from the environment.
-- After a rotation the previous secret keeps signing until previous_expires_at.
CREATE TABLE signing_secrets (
  tenant_id           text PRIMARY KEY REFERENCES tenants (id) ON DELETE CASCADE,
  current_secret      bytea NOT NULL,
  previous_secret     bytea,
  previous_expires_at timestamptz,
  rotated_at          timestamptz,
  created_at          timestamptz NOT NULL DEFAULT now(),
  CHECK ((previous_secret IS NULL) = (previous_expires_at IS NULL))
);

-- Token buckets for API rate limits, shared by every web node. Losing them on a crash is
-- harmless, so they skip the WAL.
CREATE UNLOGGED TABLE rate_limit_buckets (
  key        text PRIMARY KEY,
  tokens     double precision NOT NULL,
  updated_at timestamptz NOT NULL
);

CREATE TABLE idempotency_keys (
  tenant_id    text NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  key          text NOT NULL,
  request_hash bytea NOT NULL,
  job_id       text NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, key)
);
CREATE INDEX idempotency_keys_created_idx ON idempotency_keys (created_at);

-- Jobs -----------------------------------------------------------------------------------

CREATE TABLE jobs (
  id                          text PRIMARY KEY,
  tenant_id                   text NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  name                        text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 200),
  schedule_type               text NOT NULL CHECK (schedule_type IN ('once', 'cron', 'interval')),
  cron_expression             text,
  timezone                    text NOT NULL DEFAULT 'UTC',
  run_at                      timestamptz,
  every_seconds               integer CHECK (every_seconds >= 1),
  anchor_at                   timestamptz NOT NULL DEFAULT now(),
  target                      jsonb NOT NULL,
  payload                     jsonb,
  retry_max_attempts          integer NOT NULL DEFAULT 5 CHECK (retry_max_attempts BETWEEN 1 AND 100),
  retry_initial_delay_seconds integer NOT NULL DEFAULT 10 CHECK (retry_initial_delay_seconds >= 0),
  retry_max_delay_seconds     integer NOT NULL DEFAULT 3600 CHECK (retry_max_delay_seconds >= 0),
  timeout_seconds             integer NOT NULL DEFAULT 30 CHECK (timeout_seconds BETWEEN 1 AND 900),
  priority                    text NOT NULL DEFAULT 'normal' CHECK (priority IN ('high', 'normal', 'low')),
  misfire_policy              text NOT NULL DEFAULT 'run_once' CHECK (misfire_policy IN ('run_once', 'catch_up', 'skip')),
  overlap_policy              text NOT NULL DEFAULT 'allow' CHECK (overlap_policy IN ('allow', 'skip')),
  status                      text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'paused', 'completed')),
  partition                   integer NOT NULL CHECK (partition >= 0),
  version                     integer NOT NULL DEFAULT 1,
  created_by                  text,
  created_at                  timestamptz NOT NULL DEFAULT now(),
  updated_at                  timestamptz NOT NULL DEFAULT now(),
  deleted_at                  timestamptz,
  CHECK (
    (schedule_type = 'once' AND run_at IS NOT NULL)
    OR (schedule_type = 'cron' AND cron_expression IS NOT NULL)
    OR (schedule_type = 'interval' AND every_seconds IS NOT NULL)
  )
);
CREATE INDEX jobs_tenant_list_idx ON jobs (tenant_id, created_at DESC, id DESC) WHERE deleted_at IS NULL;
CREATE INDEX jobs_tenant_status_idx ON jobs (tenant_id, status, created_at DESC, id DESC) WHERE deleted_at IS NULL;
CREATE INDEX jobs_tenant_name_idx ON jobs (tenant_id, name text_pattern_ops) WHERE deleted_at IS NULL;

-- The narrow due-scan index: one row per active job with a next occurrence. Paused,
-- completed and deleted jobs have no row, so the scan never reads past them.
CREATE TABLE schedule_entries (
  job_id      text PRIMARY KEY REFERENCES jobs (id) ON DELETE CASCADE,
  tenant_id   text NOT NULL,
  partition   integer NOT NULL,
  next_run_at timestamptz NOT NULL
) WITH (fillfactor = 80);
CREATE INDEX schedule_entries_due_idx ON schedule_entries (partition, next_run_at);

-- Runs and attempts (time-partitioned history) -------------------------------------------

CREATE TABLE runs (
  id               text NOT NULL,
  tenant_id        text NOT NULL,
  job_id           text NOT NULL,
  scheduled_time   timestamptz NOT NULL,
  status           text NOT NULL CHECK (status IN ('pending', 'running', 'succeeded', 'failed', 'dead', 'cancelled', 'skipped')),
  skip_reason      text CHECK (skip_reason IN ('misfire', 'overlap')),
  attempt          integer NOT NULL DEFAULT 0,
  trigger          text NOT NULL CHECK (trigger IN ('schedule', 'manual', 'replay')),
  replay_of        text,
  priority         text NOT NULL DEFAULT 'normal',
  worker_id        text,
  lease_expires_at timestamptz,
  next_attempt_at  timestamptz,
  last_error       text,
  created_at       timestamptz NOT NULL DEFAULT now(),
  started_at       timestamptz,
  finished_at      timestamptz,
  PRIMARY KEY (id, scheduled_time)
) PARTITION BY RANGE (scheduled_time);
-- At most one scheduled run per occurrence, whatever happens.
CREATE UNIQUE INDEX runs_occurrence_key ON runs (job_id, scheduled_time) WHERE trigger = 'schedule';
CREATE INDEX runs_job_idx ON runs (job_id, scheduled_time DESC, id DESC);
CREATE INDEX runs_tenant_idx ON runs (tenant_id, scheduled_time DESC, id DESC);
CREATE INDEX runs_dead_idx ON runs (tenant_id, finished_at DESC, id DESC) WHERE status = 'dead';
CREATE INDEX runs_lease_idx ON runs (lease_expires_at) WHERE status = 'running';
CREATE INDEX runs_open_idx ON runs (job_id) WHERE status IN ('pending', 'running', 'failed');
CREATE TABLE runs_default PARTITION OF runs DEFAULT;

CREATE TABLE run_attempts (
  run_id           text NOT NULL,
  scheduled_time   timestamptz NOT NULL,
  tenant_id        text NOT NULL,
  job_id           text NOT NULL,
  attempt          integer NOT NULL,
  worker_id        text,
  status           text NOT NULL CHECK (status IN ('running', 'succeeded', 'failed', 'cancelled')),
  started_at       timestamptz NOT NULL,
  finished_at      timestamptz,
  http_status      integer,
  duration_ms      integer,
  error            text,
  response_snippet text CHECK (octet_length(response_snippet) <= 4096),
  request_headers  jsonb,
  PRIMARY KEY (run_id, scheduled_time, attempt)
) PARTITION BY RANGE (scheduled_time);
CREATE TABLE run_attempts_default PARTITION OF run_attempts DEFAULT;

-- Creates the daily partitions of runs and run_attempts for [from_day, to_day] (UTC days).
CREATE FUNCTION belfry_ensure_history_partitions(from_day date, to_day date) RETURNS integer
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
        EXECUTE format('CREATE TABLE %I PARTITION OF %I FOR VALUES FROM (%L) TO (%L)',
                       tbl || '_' || to_char(d, 'YYYYMMDD'), tbl, lo, hi);
        created := created + 1;
      END IF;
    END LOOP;
    d := d + 1;
  END LOOP;
  RETURN created;
END;
$$;

-- Drops daily partitions whose whole day is before `before_day`; returns how many.
CREATE FUNCTION belfry_drop_history_partitions(before_day date) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
  part    record;
  dropped integer := 0;
BEGIN
  FOR part IN
    SELECT c.relname
    FROM pg_inherits i
    JOIN pg_class c ON c.oid = i.inhrelid
    JOIN pg_class p ON p.oid = i.inhparent
    WHERE p.relname IN ('runs', 'run_attempts')
      AND c.relname ~ '_[0-9]{8}$'
      AND to_date(right(c.relname, 8), 'YYYYMMDD') < before_day
  LOOP
    EXECUTE format('DROP TABLE %I', part.relname);
    dropped := dropped + 1;
  END LOOP;
  RETURN dropped;
END;
$$;

SELECT belfry_ensure_history_partitions((now() AT TIME ZONE 'UTC')::date - 1, (now() AT TIME ZONE 'UTC')::date + 7);

-- Engine coordination ----------------------------------------------------------------------

-- One row per scheduler partition. `epoch` increases on every change of owner; every write a
-- scheduler makes for a partition checks (owner, epoch) under a row lock (fencing).
CREATE TABLE partition_leases (
  partition  integer PRIMARY KEY CHECK (partition >= 0),
  owner      text,
  epoch      bigint NOT NULL DEFAULT 0,
  expires_at timestamptz
);
CREATE INDEX partition_leases_owner_idx ON partition_leases (owner);

CREATE TABLE engine_nodes (
  id           text PRIMARY KEY,
  roles        text[] NOT NULL,
  hostname     text NOT NULL,
  pid          integer NOT NULL,
  version      text,
  stats        jsonb NOT NULL DEFAULT '{}'::jsonb,
  started_at   timestamptz NOT NULL DEFAULT now(),
  heartbeat_at timestamptz NOT NULL DEFAULT now(),
  stopped_at   timestamptz
);
CREATE INDEX engine_nodes_heartbeat_idx ON engine_nodes (heartbeat_at DESC);

-- Audit log ---------------------------------------------------------------------------------

CREATE TABLE audit_log (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  tenant_id   text NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  actor_type  text NOT NULL CHECK (actor_type IN ('user', 'api_key', 'system')),
  actor_id    text,
  action      text NOT NULL,
  target_type text NOT NULL,
  target_id   text,
  details     jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX audit_log_tenant_idx ON audit_log (tenant_id, created_at DESC, id DESC);
CREATE INDEX audit_log_target_idx ON audit_log (tenant_id, target_type, target_id, created_at DESC);
