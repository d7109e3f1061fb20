// The notification outbox's hot SQL: claiming due notifications a channel at a time, and
// recording what became of them. A claim is a lease (locked_until), not a status: a dispatcher
// that dies mid-send leaves rows that another takes once the lease runs out, so every
// notification is delivered at least once. A channel's notifications are only claimed once it
// has been quiet for a moment (or its oldest has waited long enough): incidents that open
// together go out together, as one digest.
import type { IncidentKind, NotificationEvent } from '@belfry/core';
import type { Queryable } from './types';

export interface ClaimOptions {
  /** a channel is ready when its newest pending notification is at least this old… */
  quietSeconds: number;
  /** …or its oldest at least this old */
  maxWaitSeconds: number;
  /** how long a claim holds before another dispatcher may take the rows */
  lockSeconds: number;
  maxChannels: number;
  maxNotifications: number;
}

export interface ClaimedNotification {
  id: string;
  tenant_id: string;
  channel_id: string;
  /** null when the channel was deleted */
  channel_type: string | null;
  channel_sealed: Buffer | null;
  event: NotificationEvent;
  attempts: number;
  created_at: Date;
  incident_id: string;
  kind: IncidentKind;
  run_id: string | null;
  scheduled_time: Date | null;
  opened_at: Date;
  resolved_at: Date | null;
  resolved_run_id: string | null;
  job_id: string;
  job_name: string | null;
}

export async function claimAlertNotifications(tx: Queryable, o: ClaimOptions): Promise<ClaimedNotification[]> {
  const { rows } = await tx.query<ClaimedNotification>(
    `WITH ready AS (
       SELECT channel_id FROM alert_notifications
       WHERE status = 'pending' AND next_attempt_at <= now() AND (locked_until IS NULL OR locked_until < now())
       GROUP BY channel_id
       HAVING max(created_at) <= now() - make_interval(secs => $1) OR min(created_at) <= now() - make_interval(secs => $2)
       LIMIT $3
     ), picked AS (
       SELECT n.id FROM alert_notifications n
       WHERE n.channel_id IN (SELECT channel_id FROM ready) AND n.status = 'pending' AND n.next_attempt_at <= now()
         AND (n.locked_until IS NULL OR n.locked_until < now())
       ORDER BY n.created_at, n.id
       LIMIT $4
       FOR UPDATE SKIP LOCKED
     ), claimed AS (
       UPDATE alert_notifications n SET locked_until = now() + make_interval(secs => $5), attempts = n.attempts + 1
       FROM picked WHERE n.id = picked.id
       RETURNING n.id, n.tenant_id, n.channel_id, n.event, n.attempts, n.created_at, n.incident_id
     )
     SELECT c.id, c.tenant_id, c.channel_id, ch.type AS channel_type, ch.sealed AS channel_sealed, c.event, c.attempts,
            c.created_at, c.incident_id, i.kind, i.run_id, i.scheduled_time, i.opened_at, i.resolved_at,
            i.resolved_run_id, i.job_id, j.name AS job_name
     FROM claimed c
     JOIN incidents i ON i.id = c.incident_id
     LEFT JOIN jobs j ON j.id = i.job_id
     LEFT JOIN alert_channels ch ON ch.id = c.channel_id AND ch.tenant_id = c.tenant_id
     ORDER BY c.created_at, c.id`,
    [o.quietSeconds, o.maxWaitSeconds, o.maxChannels, o.maxNotifications, o.lockSeconds],
  );
  return rows;
}

export type NotificationResult =
  | { id: string; status: 'sent'; messageId: string }
  | { id: string; status: 'failed'; error: string }
  | { id: string; status: 'pending'; error: string; nextAttemptAt: Date };

/** Records outcomes of claimed notifications; a retry waits until nextAttemptAt. */
export async function finishAlertNotifications(tx: Queryable, results: NotificationResult[]): Promise<void> {
  if (!results.length) return;
  await tx.query(
    `UPDATE alert_notifications n
     SET status = r.status, locked_until = NULL, last_error = r.error, message_id = coalesce(r.message_id, n.message_id),
         sent_at = CASE WHEN r.status = 'sent' THEN now() END,
         next_attempt_at = coalesce(r.next_attempt_at, n.next_attempt_at)
     FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::timestamptz[])
       AS r(id, status, error, message_id, next_attempt_at)
     WHERE n.id = r.id AND n.status = 'pending'`,
    [
      results.map((r) => r.id),
      results.map((r) => r.status),
      results.map((r) => (r.status === 'sent' ? null : r.error)),
      results.map((r) => (r.status === 'sent' ? r.messageId : null)),
      results.map((r) => (r.status === 'pending' ? r.nextAttemptAt : null)),
    ],
  );
}

export interface NotificationOutcomeCount {
  channel_type: string;
  status: 'sent' | 'retry' | 'failed';
  n: number;
}

/**
 * What every dispatcher (engine nodes and web processes alike) recorded on the outbox, per
 * channel type: notifications sent, failed for good, and failed attempts that were retried.
 * Each claim adds one attempt, so a finished row was retried attempts - 1 times and a pending
 * one attempts times — less the attempt in flight while its lease is held. Notifications of a
 * deleted channel count as channel type "deleted" (as the dispatcher reports them).
 */
export async function countNotificationOutcomes(db: Queryable): Promise<NotificationOutcomeCount[]> {
  const { rows } = await db.query<NotificationOutcomeCount>(
    `WITH per_type AS (
       SELECT coalesce(ch.type, 'deleted') AS channel_type,
              count(*) FILTER (WHERE n.status = 'sent')::int AS sent,
              count(*) FILTER (WHERE n.status = 'failed')::int AS failed,
              coalesce(sum(CASE
                WHEN n.status <> 'pending' THEN greatest(n.attempts - 1, 0)
                WHEN n.locked_until > now() THEN greatest(n.attempts - 1, 0)
                ELSE n.attempts END), 0)::int AS retry
       FROM alert_notifications n
       LEFT JOIN alert_channels ch ON ch.id = n.channel_id AND ch.tenant_id = n.tenant_id
       GROUP BY 1
     )
     SELECT channel_type, s.status, s.n
     FROM per_type
     CROSS JOIN LATERAL (VALUES ('sent', sent), ('retry', retry), ('failed', failed)) AS s(status, n)
     ORDER BY channel_type, s.status`,
  );
  return rows;
}
