-- Herd spreading (jitterSeconds): each occurrence of a job starts at its scheduled time plus a
-- fixed offset in [0, jitter_seconds). The run keeps its nominal scheduled_time (the occurrence,
-- unique per job) and records when it is due to start in due_at. NULL = at its scheduled time
-- (runs from before this migration, manual and replay runs).
ALTER TABLE jobs ADD COLUMN jitter_seconds integer NOT NULL DEFAULT 0
  CHECK (jitter_seconds BETWEEN 0 AND 3600);
ALTER TABLE runs ADD COLUMN due_at timestamptz;
