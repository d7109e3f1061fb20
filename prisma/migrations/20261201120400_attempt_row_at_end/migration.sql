-- An attempt's row is written once, when the attempt ends. The attempt in progress lives on its
-- run row only: the run already holds its number, worker and lease (attempt, worker_id,
-- lease_expires_at, status 'running'); attempt_started_at is when that attempt started (the
-- run's started_at is when its first attempt did). A claim used to insert a 'running' attempt row
-- and its completion to update it: two row versions and two rounds of index maintenance per
-- attempt, in the hottest statements. Readers show the attempt in progress from the run row.
--
-- Runs in flight at the upgrade: their open attempt rows move onto the run row (started_at), so
-- whatever ends them (a pull worker's report, the reaper, a cancel, an adopting node) writes the
-- attempt's one row as for any other run. They are found through the running runs (their partial
-- indexes), each open row by its primary key: left to itself the planner hash-joined a sequential
-- scan of every attempt partition (the whole history), hence the three settings below, for this
-- transaction only. An open row of a run cancelled while it ran stays: the report of its end
-- closes it (apps/engine/src/worker/completions.ts, closeCancelledAttempt in pull-leases.ts).
--
-- Adding a column without a default only changes the catalog: at most 10 s to get the tables'
-- lock (an engine of the old version in a long transaction), else the migration fails and rolls
-- back cleanly.
SET LOCAL lock_timeout = '10s';
ALTER TABLE runs ADD COLUMN attempt_started_at timestamptz;

SET LOCAL enable_seqscan = off;
SET LOCAL enable_hashjoin = off;
SET LOCAL enable_mergejoin = off;
WITH open AS (
  DELETE FROM run_attempts a
   USING runs r
   WHERE r.status = 'running' AND a.run_id = r.id AND a.scheduled_time = r.scheduled_time
     AND a.attempt = r.attempt AND a.status = 'running'
  RETURNING a.run_id, a.scheduled_time, a.started_at
)
UPDATE runs r SET attempt_started_at = o.started_at
  FROM open o
 WHERE r.id = o.run_id AND r.scheduled_time = o.scheduled_time;
