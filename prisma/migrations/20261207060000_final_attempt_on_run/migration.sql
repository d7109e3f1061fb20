-- A run's last attempt, when it ends the run, is recorded on the run row instead of a
-- run_attempts row of its own (issue 16, ask 5). The engine's completion already updates the run
-- (status, finished_at, last_error) in the same statement; the attempt's outcome now rides along
-- in that update — columns of no index, so it stays a HOT update — where it cost an insert into
-- run_attempts (a heap tuple and a primary-key entry). Most runs end at their first attempt, so
-- most runs now have no run_attempts row at all. Measured in six pairs of 100K herds in turns
-- (PostgreSQL 18.4, 2-core machine): run history on disk 790 bytes a run instead of 1,023, WAL
-- 2,670 instead of 2,865, PostgreSQL's CPU per run 3 % less, delivery ~2.5 % faster.
--
-- attempt_status is set only by that completion, and only when it ends the run (succeeded, dead,
-- cancelled): a run with attempt_status holds its last attempt's outcome (http_status,
-- duration_ms, last_error, response_snippet, request_headers, exit_code, attempt_started_at to
-- finished_at, worker_id). Every other ending (a retry, a pull worker's report, the reaper, a
-- cancel) still writes a run_attempts row, as before. Readers see both through the view
-- run_attempt_history: every run_attempts row, and the attempt a run row holds. A row left
-- 'running' for that same attempt by a process of a version before attempt_row_at_end is hidden
-- behind the run's outcome.
--
-- Adding columns without a default only changes the catalog: at most 10 s to get the tables'
-- lock (an engine of the old version in a long transaction), else the migration fails and rolls
-- back cleanly.
SET LOCAL lock_timeout = '10s';
ALTER TABLE runs
  ADD COLUMN attempt_status   text CHECK (attempt_status IN ('succeeded', 'failed', 'cancelled')),
  ADD COLUMN http_status      integer,
  ADD COLUMN duration_ms      integer,
  ADD COLUMN response_snippet text CHECK (octet_length(response_snippet) <= 4096),
  ADD COLUMN request_headers  jsonb,
  ADD COLUMN exit_code        integer;

CREATE VIEW run_attempt_history AS
  SELECT a.run_id, a.scheduled_time, a.tenant_id, a.job_id, a.attempt, a.worker_id, a.status, a.started_at,
         a.finished_at, a.http_status, a.duration_ms, a.error, a.response_snippet, a.request_headers, a.exit_code
    FROM run_attempts a
   WHERE NOT EXISTS (SELECT 1 FROM runs r
                      WHERE r.id = a.run_id AND r.scheduled_time = a.scheduled_time
                        AND r.attempt = a.attempt AND r.attempt_status IS NOT NULL)
  UNION ALL
  SELECT r.id, r.scheduled_time, r.tenant_id, r.job_id, r.attempt, r.worker_id, r.attempt_status,
         COALESCE(r.attempt_started_at, r.started_at, r.finished_at), r.finished_at, r.http_status, r.duration_ms,
         r.last_error, r.response_snippet, r.request_headers, r.exit_code
    FROM runs r
   WHERE r.attempt_status IS NOT NULL;
