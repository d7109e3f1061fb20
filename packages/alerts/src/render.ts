// The words of a notification, shared by every channel: a title, one line per incident, and
// links into the dashboard (the run, the job, the incidents page). Pure.
import type { AlertItem, AlertMessage } from './types';

const KIND_TEXT: Record<AlertItem['incident']['kind'], string> = {
  dead: 'a run is dead (attempts exhausted)',
  failing: 'runs keep failing',
  late: 'an occurrence did not start on time',
};

export interface Links {
  run(runId: string): string;
  job(jobId: string): string;
  incident(incidentId: string): string;
  incidents(): string;
}

export function dashboardLinks(baseUrl: string): Links {
  const base = baseUrl.replace(/\/+$/, '');
  return {
    run: (id) => `${base}/runs/${encodeURIComponent(id)}`,
    job: (id) => `${base}/jobs/${encodeURIComponent(id)}`,
    incident: (id) => `${base}/incidents?id=${encodeURIComponent(id)}`,
    incidents: () => `${base}/incidents`,
  };
}

export function itemTitle(item: AlertItem): string {
  const name = `"${item.job.name}"`;
  if (item.event === 'resolved') return `Resolved: job ${name} (${item.incident.kind})`;
  return `Job ${name}: ${KIND_TEXT[item.incident.kind]}`;
}

export function messageTitle(message: AlertMessage): string {
  if (message.test) return '[Belfry] Test notification';
  const [first] = message.items;
  if (message.items.length === 1 && first) return `[Belfry] ${itemTitle(first)}`;
  const opened = message.items.filter((i) => i.event === 'opened').length;
  const resolved = message.items.length - opened;
  return `[Belfry] ${message.items.length} incidents: ${opened} opened, ${resolved} resolved`;
}

/** The plain-text lines of one incident: what happened, to which job, which run, where to look. */
export function itemLines(item: AlertItem, links: Links): string[] {
  const i = item.incident;
  const lines = [
    itemTitle(item),
    `  job: ${item.job.name} (${item.job.id}) ${links.job(item.job.id)}`,
    `  incident: ${i.id} (${i.kind}) opened ${i.openedAt.toISOString()}${i.resolvedAt ? `, resolved ${i.resolvedAt.toISOString()}` : ''}`,
  ];
  if (i.runId) lines.push(`  run: ${i.runId} ${links.run(i.runId)}`);
  if (i.scheduledTime) lines.push(`  due: ${i.scheduledTime.toISOString()}`);
  return lines;
}

export function messageText(message: AlertMessage, links: Links): string {
  if (message.test) {
    return 'This is a test notification from Belfry: this channel is set up to receive alerts.\n';
  }
  return `${message.items.map((item) => itemLines(item, links).join('\n')).join('\n\n')}\n\nIncidents: ${links.incidents()}\n`;
}

/** The JSON form (webhook channel): everything a receiver needs, links included. */
export function messageJson(message: AlertMessage, links: Links): Record<string, unknown> {
  return {
    type: message.test ? 'belfry.alert.test' : 'belfry.alert',
    id: message.id,
    title: messageTitle(message),
    notifications: message.items.map((item) => ({
      id: item.notificationId,
      event: item.event,
      incident: {
        id: item.incident.id,
        kind: item.incident.kind,
        openedAt: item.incident.openedAt.toISOString(),
        resolvedAt: item.incident.resolvedAt?.toISOString() ?? null,
        scheduledTime: item.incident.scheduledTime?.toISOString() ?? null,
        url: links.incident(item.incident.id),
      },
      job: { id: item.job.id, name: item.job.name, url: links.job(item.job.id) },
      run: item.incident.runId ? { id: item.incident.runId, url: links.run(item.incident.runId) } : null,
    })),
  };
}
