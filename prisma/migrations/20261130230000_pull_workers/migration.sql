-- Pull queues: which of a tenant's workers claim from which queue, and when they last did.
-- One row per (tenant, queue, worker), upserted by every claim request; the dashboard's Queues
-- page ("workers seen", "last claim") and GET /api/v1/queues read it. Runs and their messages
-- live where every other kind's do (runs, pgboss.job `p.<tenant>.<queue>`).
CREATE TABLE pull_workers (
  tenant_id     text NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  queue         text NOT NULL,
  worker        text NOT NULL,
  first_seen_at timestamptz NOT NULL DEFAULT now(),
  last_seen_at  timestamptz NOT NULL DEFAULT now(),
  -- the last claim that handed this worker at least one run
  last_claim_at timestamptz,
  PRIMARY KEY (tenant_id, queue, worker)
);
