// A job's configuration as three cards: when it runs, what it calls, and how it is delivered.
import type { Outputs } from '../../../_lib/trpc';
import { Card, DefinitionList } from '@/components/card';
import { scheduleInWords, scheduleRaw, scheduleZone } from '../../../_lib/schedule';
import { formatInZone, formatLocal, relative, viewerZone } from '../../../_lib/time';
import { MISFIRE_OPTIONS, OVERLAP_OPTIONS } from '../_form/options';
import { targetUi } from '../_targets';

type Job = Outputs['jobs']['get'];
type Row = [string, React.ReactNode];

function Muted({ children }: { children: React.ReactNode }) {
  return <span className="text-slate-500">{children}</span>;
}

function NextRun({ job, now }: { job: Job; now: number }) {
  if (!job.nextRunAt) {
    return (
      <Muted>{job.status === 'paused' ? 'Paused' : job.status === 'completed' ? 'Completed: no more runs' : '—'}</Muted>
    );
  }
  const zone = scheduleZone(job.schedule);
  return (
    <span className="tabular-nums">
      <span className="font-medium">{relative(job.nextRunAt, now)}</span>
      <br />
      <span className="text-slate-600">{formatLocal(job.nextRunAt)}</span>
      {job.nextDueAt && job.nextDueAt !== job.nextRunAt ? (
        <>
          <br />
          <span className="text-slate-600">starts {formatLocal(job.nextDueAt)} (jitter)</span>
        </>
      ) : null}
      {zone !== viewerZone() ? (
        <>
          <br />
          <span className="text-slate-500">{formatInZone(job.nextRunAt, zone)}</span>
        </>
      ) : null}
    </span>
  );
}

function scheduleRows(job: Job, now: number): Row[] {
  return [
    [
      'Runs',
      <span key="v" className="font-medium">
        {scheduleInWords(job.schedule)}
      </span>,
    ],
    [
      'Expression',
      <code key="v" className="font-mono text-xs">
        {scheduleRaw(job.schedule)}
      </code>,
    ],
    ...(job.schedule.type === 'cron' ? ([['Time zone', job.schedule.timezone]] as Row[]) : []),
    ['Jitter', job.jitterSeconds ? `up to ${job.jitterSeconds}s after each occurrence` : <Muted key="v">None</Muted>],
    ['Next run', <NextRun key="v" job={job} now={now} />],
  ];
}

function payloadRow(job: Job): Row {
  return [
    'Payload',
    job.payload === null ? (
      <Muted key="v">None</Muted>
    ) : (
      <pre key="v" className="max-h-40 overflow-auto rounded bg-slate-50 p-2 font-mono text-xs">
        {JSON.stringify(job.payload, null, 2)}
      </pre>
    ),
  ];
}

function targetRows(job: Job): Row[] {
  const ui = targetUi(job.target.type);
  const headers = Object.entries('headers' in job.target ? (job.target.headers ?? {}) : {});
  return [
    ['Kind', ui?.label ?? job.target.type],
    ...(ui ? ui.rows(job.target) : []),
    ...(ui?.headers === false ? [] : [headersRow(headers)]),
    payloadRow(job),
  ];
}

function headersRow(headers: Array<[string, string]>): Row {
  return [
    'Headers',
    headers.length ? (
      <ul key="v" className="font-mono text-xs">
        {headers.map(([k, v]) => (
          <li key={k} className="break-all">
            {k}: {v}
          </li>
        ))}
      </ul>
    ) : (
      <Muted key="v">None</Muted>
    ),
  ];
}

function deliveryRows(job: Job): Row[] {
  const { retry } = job;
  return [
    ['Retries', `${retry.maxAttempts} attempts, ${retry.initialDelaySeconds}s → ${retry.maxDelaySeconds}s backoff`],
    ['Timeout', `${job.timeoutSeconds}s per attempt`],
    [
      'Priority',
      <span key="v" className="capitalize">
        {job.priority}
      </span>,
    ],
    ['Missed runs', MISFIRE_OPTIONS.find((o) => o.value === job.misfirePolicy)?.label ?? job.misfirePolicy],
    ['Overlap', OVERLAP_OPTIONS.find((o) => o.value === job.overlapPolicy)?.label ?? job.overlapPolicy],
    ['Created', formatLocal(job.createdAt)],
  ];
}

export function JobConfig({ job, now }: { job: Job; now: number }) {
  return (
    <div className="grid gap-6 lg:grid-cols-3">
      <Card title="Schedule" className="lg:col-span-1">
        <DefinitionList items={scheduleRows(job, now)} />
      </Card>
      <Card title="Target" className="lg:col-span-1">
        <DefinitionList items={targetRows(job)} />
      </Card>
      <Card title="Delivery" className="lg:col-span-1">
        <DefinitionList items={deliveryRows(job)} />
      </Card>
    </div>
  );
}
