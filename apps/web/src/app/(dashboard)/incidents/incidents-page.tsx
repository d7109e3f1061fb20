'use client';
// Incidents: open and resolved, newest first, each with the timeline of its notifications
// (which channel, opened or resolved, sent or failed, after how many attempts).
import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { useState } from 'react';
import { Badge } from '@/components/badge';
import { Card, PageHeader } from '@/components/card';
import { Empty, ErrorState } from '@/components/empty';
import { SelectField } from '@/components/form-fields';
import { Loading } from '@/components/spinner';
import { errorMessage } from '../../_lib/errors';
import { useTRPC } from '../../_lib/trpc';

const KIND_TEXT = { dead: 'A run went dead', failing: 'Runs keep failing', late: 'Did not start on time' } as const;

export function IncidentsPage() {
  const trpc = useTRPC();
  const [status, setStatus] = useState<'' | 'open' | 'resolved'>('');
  const incidents = useQuery({
    ...trpc.alerts.incidents.queryOptions({ ...(status ? { status } : {}), limit: 100 }),
    refetchInterval: 10_000,
  });
  return (
    <>
      <PageHeader title="Incidents" description="Dead, failing and late jobs, and who was told." />
      <div className="mb-4 max-w-xs">
        <SelectField label="Show" value={status} onChange={(e) => setStatus(e.target.value as typeof status)}>
          <option value="">All</option>
          <option value="open">Open</option>
          <option value="resolved">Resolved</option>
        </SelectField>
      </div>
      {incidents.isPending ? (
        <Loading />
      ) : incidents.isError ? (
        <ErrorState error={errorMessage(incidents.error)} retry={() => void incidents.refetch()} />
      ) : incidents.data.data.length === 0 ? (
        <Empty title="No incidents">Nothing has gone wrong that alerts were set up to notice.</Empty>
      ) : (
        <ul className="space-y-4" aria-label="Incidents">
          {incidents.data.data.map((i) => (
            <li key={i.id}>
              <Card
                title={
                  <span className="flex items-center gap-2">
                    <Badge tone={i.resolvedAt ? 'green' : 'red'}>{i.resolvedAt ? 'Resolved' : 'Open'}</Badge>
                    <span>
                      {KIND_TEXT[i.kind]}: <Link href={`/jobs/${i.jobId}`}>{i.jobName ?? i.jobId}</Link>
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
    </>
  );
}
