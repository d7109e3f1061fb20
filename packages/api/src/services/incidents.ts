// Incidents (docs/alerts.md), newest first, each with the timeline of its notifications. The
// engine and the watchdog open and resolve them (@belfry/db); the API only reads them.
import type { Actor, ServiceDeps } from '../context';
import type { IncidentsQuery, IncidentView } from '../schemas/alerts';
import { authorize } from '../security/scopes';
import { decodeCursor, type Page, pageLimit, sortTsSql, toPage } from './pagination';

interface IncidentRow {
  id: string;
  job_id: string;
  job_name: string | null;
  kind: IncidentView['kind'];
  opened_at: Date;
  resolved_at: Date | null;
  run_id: string | null;
  scheduled_time: Date | null;
  sort_ts: string;
}

/** Newest first; each with the timeline of its notifications. */
export async function listIncidents(
  deps: ServiceDeps,
  actor: Actor,
  query: IncidentsQuery = {},
): Promise<Page<IncidentView>> {
  authorize(actor, 'runs:read');
  const limit = pageLimit(query.limit);
  const after = decodeCursor('incidents', query.cursor);
  const values: unknown[] = [actor.tenantId];
  const where = ['i.tenant_id = $1'];
  if (query.status === 'open') where.push('i.resolved_at IS NULL');
  if (query.status === 'resolved') where.push('i.resolved_at IS NOT NULL');
  if (query.jobId !== undefined) where.push(`i.job_id = $${values.push(query.jobId)}`);
  if (after) where.push(`(i.opened_at, i.id) < ($${values.push(after.t)}::timestamptz, $${values.push(after.id)})`);
  values.push(limit + 1);
  const { rows } = await deps.pool.query<IncidentRow>(
    `SELECT i.id, i.job_id, j.name AS job_name, i.kind, i.opened_at, i.resolved_at, i.run_id, i.scheduled_time,
            ${sortTsSql('i.opened_at')} AS sort_ts
     FROM incidents i LEFT JOIN jobs j ON j.id = i.job_id AND j.tenant_id = i.tenant_id
     WHERE ${where.join(' AND ')}
     ORDER BY i.opened_at DESC, i.id DESC LIMIT $${values.length}`,
    values,
  );
  const page = toPage(
    'incidents',
    rows,
    limit,
    (r) => ({ t: r.sort_ts, id: r.id }),
    (r) => r,
  );
  const { rows: notes } = await deps.pool.query<{
    id: string;
    incident_id: string;
    channel_id: string;
    event: 'opened' | 'resolved';
    status: 'pending' | 'sent' | 'failed';
    attempts: number;
    sent_at: Date | null;
    last_error: string | null;
    created_at: Date;
  }>(
    `SELECT id, incident_id, channel_id, event, status, attempts, sent_at, last_error, created_at
     FROM alert_notifications WHERE tenant_id = $1 AND incident_id = ANY($2::text[]) ORDER BY created_at, id`,
    [actor.tenantId, page.data.map((r) => r.id)],
  );
  return {
    data: page.data.map((r) => ({
      id: r.id,
      jobId: r.job_id,
      jobName: r.job_name,
      kind: r.kind,
      openedAt: r.opened_at.toISOString(),
      resolvedAt: r.resolved_at?.toISOString() ?? null,
      runId: r.run_id,
      scheduledTime: r.scheduled_time?.toISOString() ?? null,
      notifications: notes
        .filter((n) => n.incident_id === r.id)
        .map((n) => ({
          id: n.id,
          channelId: n.channel_id,
          event: n.event,
          status: n.status,
          attempts: n.attempts,
          sentAt: n.sent_at?.toISOString() ?? null,
          error: n.last_error,
          createdAt: n.created_at.toISOString(),
        })),
    })),
    nextCursor: page.nextCursor,
  };
}
