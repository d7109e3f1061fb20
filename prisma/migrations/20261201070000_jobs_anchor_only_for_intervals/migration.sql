-- Compact storage, step 4 (issue 16 ask 4): jobs.anchor_at only where it means something.
--
-- anchor_at is where an interval counts from (specOf); a cron or one-off job never reads it, yet
-- every row carried 8 bytes of it. The API now stores it only for intervals (NULL otherwise):
-- 8 bytes less per cron or one-off jobs row. Existing rows keep their value (harmless, never
-- read) until the row is next written; nothing is rewritten here.
--
-- Both statements only change the catalog: DROP NOT NULL never scans, and the CHECK is added
-- NOT VALID (checked on every row written from now on, not on the rows already there, which all
-- hold a value since the column was NOT NULL until now). The exclusive lock is held for
-- milliseconds; lock_timeout makes the migration fail and roll back cleanly rather than queue
-- every reader of jobs behind a lock it waits for (a process of the old version in a long
-- transaction). The default stays, for writers that name no anchor (an interval counts from its
-- insertion).
SET LOCAL lock_timeout = '10s';

ALTER TABLE jobs ALTER COLUMN anchor_at DROP NOT NULL;
ALTER TABLE jobs ADD CONSTRAINT jobs_interval_anchor_check
  CHECK (schedule_type <> 'interval' OR anchor_at IS NOT NULL) NOT VALID;
