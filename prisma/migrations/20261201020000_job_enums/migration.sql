-- Compact storage, step 2 (issue 16 ask 4): the jobs row's five enumerations as PostgreSQL
-- enum types instead of text. An enum value is stored as its 4-byte OID where the text took
-- 5–9 bytes ('run_once' is 9): 16 bytes less per jobs row, and 8 less per entry of
-- jobs_tenant_status_idx (the status no longer pushes created_at to the next 8-byte boundary).
--
-- Reads and writes are unchanged: an enum reads and writes as its label, a literal or an untyped
-- parameter compared with or assigned to the column takes its type. What no longer works is
-- a value typed as text (`$1::text`, `= ANY($1::text[])`): name the enum type, or leave the
-- parameter untyped. Enum values sort in their declared order, not alphabetically (nothing
-- sorts by these columns). A new value is added with ALTER TYPE … ADD VALUE.
CREATE TYPE job_schedule_type AS ENUM ('once', 'cron', 'interval');
CREATE TYPE job_priority AS ENUM ('high', 'normal', 'low');
CREATE TYPE job_misfire_policy AS ENUM ('run_once', 'catch_up', 'skip');
CREATE TYPE job_overlap_policy AS ENUM ('allow', 'skip');
CREATE TYPE job_status AS ENUM ('active', 'paused', 'completed');

-- Waits at most 10 s for the table's lock (a process of the old version still running, an idle
-- transaction): the migration then fails and rolls back cleanly instead of queueing every reader
-- of jobs behind its exclusive lock.
SET LOCAL lock_timeout = '10s';

-- One statement, one rewrite of the table and its indexes (under an exclusive lock: on a large
-- table, plan the upgrade's downtime accordingly; the rewritten table holds no dead rows). The
-- enum types replace the CHECKs on the values; the schedule's CHECK is recreated over them and
-- verified during the same rewrite.
ALTER TABLE jobs
  DROP CONSTRAINT jobs_check,
  DROP CONSTRAINT jobs_schedule_type_check,
  DROP CONSTRAINT jobs_priority_check,
  DROP CONSTRAINT jobs_misfire_policy_check,
  DROP CONSTRAINT jobs_overlap_policy_check,
  DROP CONSTRAINT jobs_status_check,
  ALTER COLUMN priority DROP DEFAULT,
  ALTER COLUMN misfire_policy DROP DEFAULT,
  ALTER COLUMN overlap_policy DROP DEFAULT,
  ALTER COLUMN status DROP DEFAULT,
  ALTER COLUMN schedule_type TYPE job_schedule_type USING schedule_type::job_schedule_type,
  ALTER COLUMN priority TYPE job_priority USING priority::job_priority,
  ALTER COLUMN misfire_policy TYPE job_misfire_policy USING misfire_policy::job_misfire_policy,
  ALTER COLUMN overlap_policy TYPE job_overlap_policy USING overlap_policy::job_overlap_policy,
  ALTER COLUMN status TYPE job_status USING status::job_status,
  ALTER COLUMN priority SET DEFAULT 'normal',
  ALTER COLUMN misfire_policy SET DEFAULT 'run_once',
  ALTER COLUMN overlap_policy SET DEFAULT 'allow',
  ALTER COLUMN status SET DEFAULT 'active',
  ADD CONSTRAINT jobs_check CHECK (
    (schedule_type = 'once' AND run_at IS NOT NULL)
    OR (schedule_type = 'cron' AND cron_expression IS NOT NULL)
    OR (schedule_type = 'interval' AND every_seconds IS NOT NULL)
  );

-- A column's type change drops its statistics, and a rewrite does not count as changed rows
-- for autovacuum: without this the planner would guess at `status = 'active'` until a tenth of
-- the jobs changed.
ANALYZE jobs;
