-- A container attempt's exit code (CONTRACT.md §6: an attempt gains `exitCode`); null for
-- other kinds and for containers that never exited (killed with the node, not started).
ALTER TABLE run_attempts ADD COLUMN IF NOT EXISTS exit_code integer;
