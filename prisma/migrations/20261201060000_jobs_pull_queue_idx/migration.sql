-- The pull queues a tenant's live jobs target, by name: what GET /api/v1/queues and the
-- dashboard's Queues page page through (packages/db/src/queue/pull-list.ts). Without it each
-- page read every live job of the tenant to find the pull ones (21,200 jobs: 641 pages, 65 ms
-- hot; up to 100,000 jobs a tenant, and the Queues page polls every 2 s); with it a page reads
-- the next names in order (0.4 ms). Only jobs with a pull target have an entry, so other
-- writes of jobs do not touch it.
--
-- A plain CREATE INDEX (the migrator runs each migration in a transaction): it blocks writes
-- of jobs while it reads the table once; on a large table expect that pause. Waits at most
-- 10 s for the table's lock, then fails and rolls back instead of queueing writers behind it.
SET LOCAL lock_timeout = '10s';
CREATE INDEX jobs_pull_queue_idx ON jobs (tenant_seq, (target->>'queue'))
  WHERE deleted_at IS NULL AND target->>'type' = 'pull';
