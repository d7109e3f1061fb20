// A job's configuration as three cards: when it runs, what it calls, and how it is delivered.
import type { Outputs } from '../../../_lib/trpc';
import { Card, DefinitionList } from '@/components/card';
import { scheduleInWords, scheduleRaw, scheduleZone } from '../../../_lib/schedule';
import { formatInZone, formatLocal, relative, viewerZone } from '../../../_lib/time';
import { MISFIRE_OPTIONS, OVERLAP_OPTIONS } from '../_form/options';

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

function MapList({ entries }: { entries: [string, string][] }) {
  if (!entries.length) return <Muted>None</Muted>;
  return (
    <ul className="font-mono text-xs">
      {entries.map(([k, v]) => (
        <li key={k} className="break-all">
          {k}: {v}
        </li>
      ))}
    </ul>
  );
}

function Args({ args }: { args: string[] | undefined }) {
  if (!args?.length) return <Muted>From the image</Muted>;
  return <code className="font-mono text-xs break-all">{JSON.stringify(args)}</code>;
}

function kindRows(target: Job['target']): Row[] {
  switch (target.type) {
    case 'http':
      return [
        [
          'Request',
          <span key="v" className="font-mono text-xs break-all">
            <strong>{target.method}</strong> {target.url}
          </span>,
        ],
        ['Headers', <MapList key="v" entries={Object.entries(target.headers)} />],
      ];
    case 'container':
      return [
        [
          'Image',
          <code key="v" className="font-mono text-xs break-all">
            {target.image}
          </code>,
        ],
        ['Command', <Args key="v" args={target.command} />],
        ...(target.entrypoint ? ([['Entrypoint', <Args key="v" args={target.entrypoint} />]] as Row[]) : []),
        ['Env', <MapList key="v" entries={Object.entries(target.env)} />],
        [
          'Limits',
          `${target.memoryMb} MiB, ${target.cpus} CPU${target.cpus === 1 ? '' : 's'}, network ${target.network}`,
        ],
        ['Pull policy', target.pullPolicy],
        ...(target.user ? ([['User', target.user]] as Row[]) : []),
        ...(target.workingDir ? ([['Working dir', target.workingDir]] as Row[]) : []),
      ];
    default:
      return [['Kind', (target as { type: string }).type]];
  }
}

function targetRows(job: Job): Row[] {
  return [
    ...kindRows(job.target),
    [
      'Payload',
      job.payload === null ? (
        <Muted key="v">None</Muted>
      ) : (
        <pre key="v" className="max-h-40 overflow-auto rounded bg-slate-50 p-2 font-mono text-xs">
          {JSON.stringify(job.payload, null, 2)}
        </pre>
      ),
    ],
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
