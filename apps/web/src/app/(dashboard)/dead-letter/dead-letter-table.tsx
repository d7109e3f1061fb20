'use client';
// The table of dead runs, with a checkbox per run (and one for the page) for members.
import Link from 'next/link';
import { Table, TBody, Td, Th } from '@/components/table';
import { formatLocal, relative } from '../../_lib/time';
import type { Outputs } from '../../_lib/trpc';
import type { useToggleSet } from '../../_lib/use-toggle-set';

type DeadRun = Outputs['deadLetter']['list']['data'][number];

const CHECKBOX = 'h-4 w-4 accent-indigo-600';

function LastError({ run }: { run: DeadRun }) {
  const last = run.attempts[run.attempts.length - 1];
  const error = last?.error ?? run.lastError;
  return (
    <span className="line-clamp-2 text-rose-700" title={error ?? ''}>
      {last?.httpStatus && !(last.error ?? '').startsWith(`HTTP ${last.httpStatus}`) ? (
        <span className="font-mono">HTTP {last.httpStatus} · </span>
      ) : null}
      {error ?? '—'}
    </span>
  );
}

export function DeadLetterTable({
  rows,
  selection,
  canWrite,
  now,
}: {
  rows: DeadRun[];
  selection: ReturnType<typeof useToggleSet<string>>;
  canWrite: boolean;
  now: number;
}) {
  const pageIds = rows.map((r) => r.id);
  const allOnPage = pageIds.length > 0 && pageIds.every((id) => selection.has(id));
  return (
    <Table label="Dead runs">
      <thead>
        <tr>
          <Th className="w-10">
            {canWrite ? (
              <input
                type="checkbox"
                aria-label="Select all runs on this page"
                checked={allOnPage}
                onChange={() => selection.toggleAll(pageIds)}
                className={CHECKBOX}
              />
            ) : null}
          </Th>
          <Th>Job</Th>
          <Th>Scheduled</Th>
          <Th>Died</Th>
          <Th className="text-right">Attempts</Th>
          <Th>Last error</Th>
          <Th>
            <span className="sr-only">Open</span>
          </Th>
        </tr>
      </thead>
      <TBody>
        {rows.map((r) => (
          <tr key={r.id} className={selection.has(r.id) ? 'bg-indigo-50/50' : 'hover:bg-slate-50'}>
            <Td>
              {canWrite ? (
                <input
                  type="checkbox"
                  aria-label={`Select run of ${r.jobName} scheduled ${formatLocal(r.scheduledTime)}`}
                  checked={selection.has(r.id)}
                  onChange={() => selection.toggle(r.id)}
                  className={CHECKBOX}
                />
              ) : null}
            </Td>
            <Td className="max-w-[14rem]">
              <Link
                href={`/jobs/${r.jobId}`}
                className="block truncate font-medium text-slate-900 hover:text-indigo-600"
              >
                {r.jobName}
              </Link>
              <span className="text-xs text-slate-500 capitalize">{r.trigger}</span>
            </Td>
            <Td className="whitespace-nowrap tabular-nums">{formatLocal(r.scheduledTime)}</Td>
            <Td className="whitespace-nowrap tabular-nums" title={formatLocal(r.finishedAt)}>
              {relative(r.finishedAt, now)}
            </Td>
            <Td className="text-right tabular-nums">{r.attempt}</Td>
            <Td className="max-w-[22rem]">
              <LastError run={r} />
            </Td>
            <Td className="text-right">
              <Link href={`/runs/${r.id}`} className="text-sm font-medium text-indigo-600 hover:underline">
                Details
              </Link>
            </Td>
          </tr>
        ))}
      </TBody>
    </Table>
  );
}
