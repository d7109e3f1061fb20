'use client';
// A job's alerting on its page: its open incidents (what, since when, a link to their
// notifications on the Incidents page), and the alert settings in effect, each marked as the
// job's own or the tenant policy's.
import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { Badge } from '@/components/badge';
import { ButtonLink } from '@/components/button';
import { Card, DefinitionList } from '@/components/card';
import { QueryState } from '@/components/query-state';
import { formatLocal, relative } from '../../../_lib/time';
import { type Outputs, useTRPC } from '../../../_lib/trpc';
import { channelTarget, rulesInWords } from '../../alerts/rules';
import { INCIDENT_KIND_TEXT } from '../../incidents/kinds';

type JobAlertsView = Outputs['alerts']['forJob'];
type Channel = Outputs['alerts']['channels']['data'][number];

export function JobIncidents({ jobId, now }: { jobId: string; now: number }) {
  const trpc = useTRPC();
  const view = useQuery({ ...trpc.alerts.forJob.queryOptions({ jobId }), refetchInterval: 5_000 });
  const open = view.data?.openIncidents ?? [];
  if (!open.length) return null;
  return (
    <section
      aria-label="Open incidents"
      className="mb-6 rounded-lg border border-rose-200 bg-rose-50 px-4 py-3 text-sm text-rose-900"
    >
      <ul className="space-y-1">
        {open.map((i) => (
          <li key={i.id} className="flex flex-wrap items-center gap-2">
            <Badge tone="red">Open incident</Badge>
            <span className="font-medium">{INCIDENT_KIND_TEXT[i.kind]}</span>
            <span title={formatLocal(i.openedAt)}>since {relative(i.openedAt, now)}</span>
            {i.runId ? (
              <Link href={`/runs/${i.runId}`} className="underline">
                the run
              </Link>
            ) : null}
            <Link href={`/incidents?job=${jobId}&id=${i.id}`} className="underline">
              Notifications and timeline
            </Link>
          </li>
        ))}
      </ul>
    </section>
  );
}

function channelsInWords(ids: string[] | null, channels: Channel[] | undefined): React.ReactNode {
  if (ids === null) return 'Every channel of the workspace';
  if (ids.length === 0) return 'None: nothing is sent';
  return (
    <ul>
      {ids.map((id) => {
        const c = channels?.find((ch) => ch.id === id);
        return (
          <li key={id} className="break-all">
            {c ? `${c.type}: ${channelTarget(c)}` : <span className="font-mono text-xs">{id}</span>}
          </li>
        );
      })}
    </ul>
  );
}

function SourceTag({ source }: { source: 'job' | 'policy' }) {
  return <span className="ml-1 text-xs text-slate-500">({source === 'job' ? 'this job' : 'tenant policy'})</span>;
}

function Settings({ view, channels }: { view: JobAlertsView; channels: Channel[] | undefined }) {
  return (
    <DefinitionList
      items={[
        ...rulesInWords(view.effective).map(({ key, label, value }): [string, React.ReactNode] => [
          label,
          <span key="v">
            {value}
            <SourceTag source={view.source[key]} />
          </span>,
        ]),
        [
          'Channels',
          <div key="v">
            {channelsInWords(view.effective.channels, channels)}
            <SourceTag source={view.source.channels} />
          </div>,
        ],
      ]}
    />
  );
}

export function JobAlertSettings({ jobId, canWrite }: { jobId: string; canWrite: boolean }) {
  const trpc = useTRPC();
  const view = useQuery({ ...trpc.alerts.forJob.queryOptions({ jobId }), refetchInterval: 5_000 });
  const channels = useQuery(trpc.alerts.channels.queryOptions());
  const own = view.data?.own;
  return (
    <section aria-label="Alert settings" className="mt-6">
      <Card
        title="Alerts"
        description={
          own ? (
            'This job has alert settings of its own; what it does not set follows the tenant policy.'
          ) : (
            <>
              This job follows the tenant policy (<Link href="/alerts">Alerts</Link>).
            </>
          )
        }
        actions={
          canWrite ? (
            <ButtonLink size="sm" href={`/jobs/${jobId}/edit#alerts`}>
              Change alert settings
            </ButtonLink>
          ) : null
        }
      >
        <QueryState query={view}>{(data) => <Settings view={data} channels={channels.data?.data} />}</QueryState>
      </Card>
    </section>
  );
}
