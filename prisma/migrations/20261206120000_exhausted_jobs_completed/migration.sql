-- A job whose schedule is exhausted (a one-off whose occurrence was materialized, a schedule
-- retired) is stored `completed` from now on, at once, by the statement that clears its next
-- occurrence (advanceSchedule, packages/db/src/sql/advance-schedule.ts), and shown `active` while
-- a scheduled run of it is still open (jobStatusSql, open-runs.ts). Before, it stayed `active`
-- until the ending of its last open run completed it (belfry_complete_finished_jobs): a second
-- row version of the job after the due time, and a probe of the job at every completion.
-- Enders no longer call that function, so the jobs an earlier version left `active` without a
-- next occurrence are stored `completed` here; what the API shows for them does not change (an
-- open scheduled run still shows it active). Paused and deleted jobs are left as they are.
-- One pass over jobs (no index leads with status), run once at the upgrade.
UPDATE jobs SET status = 'completed'
 WHERE status = 'active' AND next_run_at IS NULL AND deleted_at IS NULL;
