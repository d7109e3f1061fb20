-- The API's name-prefix filter (GET /api/v1/jobs?name=) without an index of its own (issue 16
-- ask 4: bytes per stored job).
--
-- jobs_tenant_name_idx (tenant_seq, name text_pattern_ops) took ~48 bytes per job, and since the
-- schedule moved into the jobs row (20261202030000) every occurrence of a recurring job wrote an
-- entry into it as well (an advance is never a HOT update). It served only that filter. The
-- filtered list now walks jobs_tenant_status_idx newest first, as the unfiltered list does, and
-- reads each job's name from its row until the page is full: a page of a common prefix ends
-- early (0.05 ms), a prefix that matches few of the tenant's jobs reads them all (a parallel
-- sequential scan: 23 ms for a tenant of 100,000 jobs, the default maxJobs, on PostgreSQL 15 on
-- 2 cores; bench/results/README.md, "Disk per job") — what the dashboard's substring search has
-- always done.
SET LOCAL lock_timeout = '10s';
DROP INDEX jobs_tenant_name_idx;
