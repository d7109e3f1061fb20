'use client';
// The rows of the jobs list: name and target, schedule in words, next run in the viewer's zone
// and the job's, the last run and a sparkline of the recent ones.
import Link from 'next/link';
import { JobStatusBadge, RunStatusBadge, Sparkline } from '@/components/status';
import { Table, TBody, Td, Th } from '@/components/table';
import { scheduleInWords, scheduleRaw, scheduleZone } from '../../_lib/schedule';
import { formatCompact, formatInZone, relative, viewerZone } from '../../_lib/time';
import type { Outputs } from '../../_lib/trpc';

type JobRow = Outputs['jobs']['list']['data'][number];

export function JobsTable({ data, now }: { data: JobRow[]; now: number }) {
  return (
    <Table label="Jobs">
      <thead>
        <tr>
          <Th>Name</Th>
          <Th>Schedule</Th>
          <Th>Next run</Th>
          <Th>Last run</Th>
          <Th>Recent runs</Th>
          <Th className="hidden xl:table-cell">Status</Th>
        </tr>
      </thead>
      <TBody>
        {data.map((job) => {
          const last = job.recent[0];
          const zone = scheduleZone(job.schedule);
          return (
            <tr key={job.id} className="hover:bg-slate-50">
              <Td className="max-w-[14rem]">
                <Link
                  href={`/jobs/${job.id}`}
                  className="block truncate font-medium text-slate-900 hover:text-indigo-600 focus-visible:outline-2 focus-visible:outline-indigo-600"
                  title={job.name}
                >
                  {job.name}
                </Link>
                {job.status !== 'active' ? (
                  <span className="xl:hidden">
                    <JobStatusBadge status={job.status} />
                  </span>
                ) : null}
                <TargetLine target={job.target} />
              </Td>
              <Td className="max-w-[15rem]">
                <div className="truncate" title={scheduleInWords(job.schedule)}>
                  {scheduleInWords(job.schedule)}
                </div>
                <div className="truncate text-xs text-slate-500">
                  <code className="font-mono">{scheduleRaw(job.schedule)}</code>
                  {job.schedule.type === 'cron' ? <> · {zone}</> : null}
                </div>
              </Td>
              <Td className="whitespace-nowrap">
                {job.nextRunAt ? (
                  <>
                    <div className="font-medium tabular-nums text-slate-900">{relative(job.nextRunAt, now)}</div>
                    <div
                      className="text-xs text-slate-500 tabular-nums"
                      title={`Job's zone: ${formatInZone(job.nextRunAt, zone)}`}
                    >
                      {formatCompact(job.nextRunAt)}
                    </div>
                    {zone !== viewerZone() ? (
                      <div className="text-xs text-slate-400 tabular-nums">{formatCompact(job.nextRunAt, zone)}</div>
                    ) : null}
                  </>
                ) : (
                  <span className="text-slate-400">—</span>
                )}
              </Td>
              <Td className="whitespace-nowrap">
                {last ? (
                  <Link
                    href={`/runs/${last.id}`}
                    className="inline-flex flex-col gap-0.5 focus-visible:outline-2 focus-visible:outline-indigo-600"
                  >
                    <RunStatusBadge status={last.status} />
                    <span className="text-xs text-slate-500 tabular-nums">{relative(last.scheduledTime, now)}</span>
                  </Link>
                ) : (
                  <span className="text-xs text-slate-400">No runs yet</span>
                )}
              </Td>
              <Td>
                <Sparkline runs={job.recent} />
              </Td>
              <Td className="hidden xl:table-cell">
                <JobStatusBadge status={job.status} />
              </Td>
            </tr>
          );
        })}
      </TBody>
    </Table>
  );
}

/** What a job calls, in one line: the request, or the container image. */
function TargetLine({ target }: { target: JobRow['target'] }) {
  if (target.type === 'http') {
    return (
      <div className="truncate text-xs text-slate-500" title={target.url}>
        <span className="font-mono">{target.method}</span> {target.url}
      </div>
    );
  }
  return (
    <div className="truncate text-xs text-slate-500" title={target.image}>
      <span className="font-mono">container</span> {target.image}
    </div>
  );
}
