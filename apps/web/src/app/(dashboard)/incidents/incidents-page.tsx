'use client';
// Incidents: open and resolved, newest first, each with the timeline of its notifications
// (which channel, opened or resolved, sent or failed, after how many attempts). `?job=<id>`
// shows one job's (a job's page links here); `?id=<incident id>` (the link in every
// notification) scrolls to that incident and marks it.
import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { useSearchParams } from 'next/navigation';
import { useEffect, useState } from 'react';
import { Badge } from '@/components/badge';
import { Card, PageHeader } from '@/components/card';
import { SelectField } from '@/components/form-fields';
import { QueryState } from '@/components/query-state';
import { useTRPC } from '../../_lib/trpc';
import { INCIDENT_KIND_TEXT } from './kinds';

export function IncidentsPage() {
  const trpc = useTRPC();
  const params = useSearchParams();
  const jobId = params.get('job') ?? '';
  const focusId = params.get('id') ?? '';
  const [status, setStatus] = useState<'' | 'open' | 'resolved'>('');
  const incidents = useQuery({
    ...trpc.alerts.incidents.queryOptions({ ...(status ? { status } : {}), ...(jobId ? { jobId } : {}), limit: 100 }),
    refetchInterval: 10_000,
  });
  // The incident a link points at exists only once the list has loaded.
  const loaded = incidents.isSuccess;
  useEffect(() => {
    if (loaded && focusId) document.getElementById(focusId)?.scrollIntoView({ block: 'start' });
  }, [loaded, focusId]);
  return (
    <>
      <PageHeader title="Incidents" description="Dead, failing and late jobs, and who was told." />
      {jobId ? (
        <p className="mb-3 text-sm text-slate-600">
          Showing the incidents of job <Link href={`/jobs/${jobId}`}>{jobId}</Link> ·{' '}
          <Link href="/incidents">show every job's</Link>
        </p>
      ) : null}
      <div className="mb-4 max-w-xs">
        <SelectField label="Show" value={status} onChange={(e) => setStatus(e.target.value as typeof status)}>
          <option value="">All</option>
          <option value="open">Open</option>
          <option value="resolved">Resolved</option>
        </SelectField>
      </div>
      <QueryState
        query={incidents}
        isEmpty={(page) => page.data.length === 0}
        empty={{ title: 'No incidents', text: 'Nothing has gone wrong that alerts were set up to notice.' }}
      >
        {(page) => (
          <ul className="space-y-4" aria-label="Incidents">
            {page.data.map((i) => (
              <li
                key={i.id}
                id={i.id}
                aria-current={i.id === focusId ? 'true' : undefined}
                className={`scroll-mt-4 rounded-lg ${i.id === focusId ? 'ring-2 ring-indigo-500' : ''}`}
              >
                <Card
                  title={
                    <span className="flex items-center gap-2">
                      <Badge tone={i.resolvedAt ? 'green' : 'red'}>{i.resolvedAt ? 'Resolved' : 'Open'}</Badge>
                      <span>
                        {INCIDENT_KIND_TEXT[i.kind]}: <Link href={`/jobs/${i.jobId}`}>{i.jobName ?? i.jobId}</Link>
                      </span>
                    </span>
                  }
                  description={
                    <>
                      <span className="font-mono text-xs">{i.id}</span> · opened {new Date(i.openedAt).toLocaleString()}
                      {i.resolvedAt ? ` · resolved ${new Date(i.resolvedAt).toLocaleString()}` : ''}
                      {i.runId ? (
                        <>
                          {' · '}
                          <Link href={`/runs/${i.runId}`}>run {i.runId}</Link>
                        </>
                      ) : null}
                    </>
                  }
                >
                  {i.notifications.length === 0 ? (
                    <p className="text-sm text-slate-500">No notifications (no channel was chosen).</p>
                  ) : (
                    <ol className="space-y-1 text-sm" aria-label="Notifications">
                      {i.notifications.map((n) => (
                        <li key={n.id} className="flex flex-wrap gap-2">
                          <Badge tone={n.status === 'sent' ? 'green' : n.status === 'failed' ? 'red' : 'amber'}>
                            {n.status}
                          </Badge>
                          <span>
                            {n.event} → <span className="font-mono text-xs">{n.channelId}</span>
                          </span>
                          <span className="text-slate-500">
                            {n.sentAt ? new Date(n.sentAt).toLocaleString() : ''} · {n.attempts} attempt
                            {n.attempts === 1 ? '' : 's'}
                            {n.error ? ` · ${n.error}` : ''}
                          </span>
                        </li>
                      ))}
                    </ol>
                  )}
                </Card>
              </li>
            ))}
          </ul>
        )}
      </QueryState>
    </>
  );
}
