-- The late watchdog's gate (packages/db/src/sql/late-incidents.ts): late detection is opt-in
-- (a tenant's alert policy or a job's own alerts.lateAfterSeconds), and where nothing sets it the
-- watchdog's scans — every waiting run of every partition joined to its job, every few seconds —
-- found nothing at a cost: during a 20,000-run herd they were 8 % of PostgreSQL's statement time
-- (about 0.5 s per scan). The gate asks this index, which holds only the jobs that set a late
-- threshold (none in most installations: an empty index, nothing written for other jobs).
--
-- Building it reads the jobs table once under a lock that holds writers of jobs (not readers)
-- meanwhile; 10 s at most to get that lock, else the migration fails and rolls back cleanly.
SET LOCAL lock_timeout = '10s';
CREATE INDEX jobs_late_after_idx ON jobs (id) WHERE (alerts ->> 'lateAfterSeconds') IS NOT NULL;
