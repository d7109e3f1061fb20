// Opening incidents and queueing their notifications: the one way incidents begin, shared by
// the engine's run outcomes and the late watchdog. The partial unique index on open incidents
// makes opening idempotent — a second opener (another node, the web process) inserts nothing
// and so queues nothing. Notifications are rows of the outbox (alert_notifications), written
// in the caller's transaction, so an incident is never opened without its notifications.
import { newId, type IncidentKind, type NotificationEvent } from '@belfry/core';
import { EFFECTIVE_ALERT_SETTINGS_SQL } from './alert-settings';
import type { Queryable } from './types';

export interface IncidentCandidate {
  tenantId: string;
  jobId: string;
  kind: IncidentKind;
  runId: string | null;
  scheduledTime: Date | null;
}

export interface ChangedIncident {
  id: string;
  tenant_id: string;
  job_id: string;
  kind: IncidentKind;
}

/** Opens the candidates that have no open incident of their kind; queues 'opened' notifications. */
export async function openIncidents(tx: Queryable, candidates: IncidentCandidate[]): Promise<ChangedIncident[]> {
  if (!candidates.length) return [];
  const { rows } = await tx.query<ChangedIncident & { channels: string[] }>(
    `WITH c AS (
       SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::timestamptz[])
         AS c(id, tenant_id, job_id, kind, run_id, scheduled_time)
     ), opened AS (
       INSERT INTO incidents (id, tenant_id, job_id, kind, run_id, scheduled_time)
       SELECT id, tenant_id, job_id, kind, run_id, scheduled_time FROM c
       ON CONFLICT (job_id, kind) WHERE resolved_at IS NULL DO NOTHING
       RETURNING id, tenant_id, job_id, kind
     )
     SELECT o.id, o.tenant_id, o.job_id, o.kind,
            ARRAY(SELECT ch.id FROM alert_channels ch
                  WHERE ch.tenant_id = o.tenant_id AND (s.channels IS NULL OR ch.id = ANY(s.channels))
                  ORDER BY ch.id) AS channels
     FROM opened o
     JOIN jobs j ON j.id = o.job_id
     LEFT JOIN alert_policies p ON p.tenant_id = j.tenant_id
     CROSS JOIN LATERAL (SELECT ${EFFECTIVE_ALERT_SETTINGS_SQL}) s`,
    [
      candidates.map(() => newId('inc')),
      candidates.map((c) => c.tenantId),
      candidates.map((c) => c.jobId),
      candidates.map((c) => c.kind),
      candidates.map((c) => c.runId),
      candidates.map((c) => c.scheduledTime),
    ],
  );
  await queueNotifications(
    tx,
    rows.flatMap((r) => r.channels.map((channelId) => ({ incident: r, channelId, event: 'opened' as const }))),
  );
  return rows.map(({ channels: _, ...r }) => r);
}

/**
 * For incidents just resolved: a recovery notice to each channel that was told of the opening,
 * when the job's settings ask for one (notifyRecovery).
 */
export async function queueRecoveryNotices(tx: Queryable, incidentIds: string[]): Promise<void> {
  if (!incidentIds.length) return;
  const { rows } = await tx.query<ChangedIncident & { channel_id: string }>(
    `SELECT DISTINCT i.id, i.tenant_id, i.job_id, i.kind, n.channel_id
     FROM incidents i
     JOIN alert_notifications n ON n.incident_id = i.id AND n.event = 'opened'
     JOIN jobs j ON j.id = i.job_id
     LEFT JOIN alert_policies p ON p.tenant_id = j.tenant_id
     CROSS JOIN LATERAL (SELECT ${EFFECTIVE_ALERT_SETTINGS_SQL}) s
     WHERE i.id = ANY($1::text[]) AND s.notify_recovery`,
    [incidentIds],
  );
  await queueNotifications(
    tx,
    rows.map((r) => ({ incident: r, channelId: r.channel_id, event: 'resolved' as const })),
  );
}

async function queueNotifications(
  tx: Queryable,
  items: { incident: ChangedIncident; channelId: string; event: NotificationEvent }[],
): Promise<void> {
  if (!items.length) return;
  await tx.query(
    `INSERT INTO alert_notifications (id, tenant_id, incident_id, channel_id, event)
     SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[])`,
    [
      items.map(() => newId('ntf')),
      items.map((i) => i.incident.tenant_id),
      items.map((i) => i.incident.id),
      items.map((i) => i.channelId),
      items.map((i) => i.event),
    ],
  );
}
