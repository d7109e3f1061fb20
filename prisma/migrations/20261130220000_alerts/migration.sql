-- Alerts and incidents (docs/alerts.md): a tenant's channels and default policy, a job's own
-- `alerts` override, the per-job failure streak, incidents (at most one open per job and
-- kind) and the notification outbox that the dispatchers of the engine and the web process
-- drain at least once.

CREATE TABLE alert_channels (
  id          text PRIMARY KEY,
  tenant_id   text NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  type        text NOT NULL CHECK (type IN ('email', 'slack', 'webhook', 'pagerduty')),
  -- what the API shows: the configuration with its secrets masked
  config      jsonb NOT NULL DEFAULT '{}',
  -- the whole configuration, sealed (secret-box): what the dispatcher sends with
  sealed      bytea NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX alert_channels_tenant_idx ON alert_channels (tenant_id, id);

CREATE TABLE alert_policies (
  tenant_id                  text PRIMARY KEY REFERENCES tenants (id) ON DELETE CASCADE,
  on_dead                    boolean NOT NULL DEFAULT true,
  after_consecutive_failures integer CHECK (after_consecutive_failures BETWEEN 1 AND 100),
  late_after_seconds         integer CHECK (late_after_seconds BETWEEN 5 AND 86400),
  notify_recovery            boolean NOT NULL DEFAULT true,
  -- null: every channel of the tenant
  channels                   text[],
  updated_at                 timestamptz NOT NULL DEFAULT now()
);

-- A job's own alert settings; a key it lacks falls back to the tenant's policy. Null = none.
ALTER TABLE jobs ADD COLUMN alerts jsonb;

-- Failed attempts in a row since the job's last success.
CREATE TABLE job_alert_states (
  job_id               text PRIMARY KEY REFERENCES jobs (id) ON DELETE CASCADE,
  tenant_id            text NOT NULL,
  consecutive_failures integer NOT NULL DEFAULT 0,
  updated_at           timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE incidents (
  id              text PRIMARY KEY,
  tenant_id       text NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  -- no foreign key: an incident outlives its (soft-deleted) job, like run history
  job_id          text NOT NULL,
  kind            text NOT NULL CHECK (kind IN ('dead', 'failing', 'late')),
  run_id          text,
  -- late: the occurrence that did not start
  scheduled_time  timestamptz,
  opened_at       timestamptz NOT NULL DEFAULT now(),
  resolved_at     timestamptz,
  resolved_run_id text
);
-- The rule "one open incident per (job, kind)": every opener inserts ON CONFLICT DO NOTHING, so
-- the engine's and the web process's watchdogs may both run.
CREATE UNIQUE INDEX incidents_open_idx ON incidents (job_id, kind) WHERE resolved_at IS NULL;
CREATE INDEX incidents_tenant_idx ON incidents (tenant_id, opened_at DESC, id DESC);

CREATE TABLE alert_notifications (
  id              text PRIMARY KEY,
  tenant_id       text NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  incident_id     text NOT NULL REFERENCES incidents (id) ON DELETE CASCADE,
  -- no foreign key: a deleted channel fails its pending notifications, history stays
  channel_id      text NOT NULL,
  event           text NOT NULL CHECK (event IN ('opened', 'resolved')),
  status          text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sent', 'failed')),
  attempts        integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  -- a dispatcher holds claimed rows until then; a crashed one's rows are taken again after it
  locked_until    timestamptz,
  last_error      text,
  -- the message it went out in: notifications sent together as one digest share it
  message_id      text,
  created_at      timestamptz NOT NULL DEFAULT now(),
  sent_at         timestamptz
);
CREATE INDEX alert_notifications_pending_idx ON alert_notifications (channel_id, next_attempt_at) WHERE status = 'pending';
CREATE INDEX alert_notifications_incident_idx ON alert_notifications (incident_id, created_at);
