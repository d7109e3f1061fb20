'use client';
// A job's runs, newest first, filterable by status, with cursor pagination. Polls.
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { useState } from 'react';
import { Card } from '@/components/card';
import { Empty, ErrorState } from '@/components/empty';
import { FilterSelect } from '@/components/form-fields';
import { Pager, useCursorPages } from '@/components/pager';
import { Loading } from '@/components/spinner';
import { RUN_STATUS_LIST, type RunStatus, RunStatusBadge, runLabel } from '@/components/status';
import { Table, TBody, Td, Th } from '@/components/table';
import { errorMessage } from '../../../_lib/errors';
import { durationBetween, formatLocal, formatMs, relative, useNow } from '../../../_lib/time';
import { useTRPC } from '../../../_lib/trpc';

const PAGE = 25;

export function JobRuns({ jobId }: { jobId: string }) {
  const trpc = useTRPC();
  const now = useNow(5_000);
  const [status, setStatus] = useState<RunStatus | ''>('');
  const pages = useCursorPages();
  const { cursor } = pages;
  const runs = useQuery({
    ...trpc.jobs.runs.queryOptions({
      jobId,
      limit: PAGE,
      ...(status ? { status } : {}),
      ...(cursor ? { cursor } : {}),
    }),
    refetchInterval: 3_000,
    placeholderData: keepPreviousData,
  });

  return (
    <Card
      className="mt-6"
      padded={false}
      title="Runs"
      description="Every occurrence, manual run and replay, newest first."
      actions={
        <FilterSelect
          id="run-status"
          label="Filter runs by status"
          hideLabel
          value={status}
          onChange={(e) => {
            setStatus(e.target.value as RunStatus | '');
            pages.reset();
          }}
          className="w-40"
        >
          <option value="">All statuses</option>
          {RUN_STATUS_LIST.map((s) => (
            <option key={s} value={s}>
              {runLabel(s)}
            </option>
          ))}
        </FilterSelect>
      }
    >
      {runs.isPending ? (
        <Loading />
      ) : runs.isError ? (
        <ErrorState error={errorMessage(runs.error)} retry={() => void runs.refetch()} />
      ) : runs.data.data.length === 0 ? (
        <Empty title={status ? `No ${runLabel(status).toLowerCase()} runs` : 'No runs yet'}>
          {status ? 'Try another status.' : 'Runs appear here as the schedule fires, or when you press Run now.'}
        </Empty>
      ) : (
        <>
          <Table label="Runs">
            <thead>
              <tr>
                <Th>Scheduled</Th>
                <Th>Status</Th>
                <Th>Trigger</Th>
                <Th className="text-right">Attempts</Th>
                <Th className="text-right">Start lag</Th>
                <Th className="text-right">Duration</Th>
                <Th className="text-right">HTTP</Th>
              </tr>
            </thead>
            <TBody>
              {runs.data.data.map((r) => {
                const last = r.attempts[r.attempts.length - 1];
                return (
                  <tr key={r.id} className="hover:bg-slate-50">
                    <Td className="whitespace-nowrap">
                      <Link
                        href={`/runs/${r.id}`}
                        className="font-medium text-slate-900 tabular-nums hover:text-indigo-600 focus-visible:outline-2 focus-visible:outline-indigo-600"
                      >
                        {formatLocal(r.scheduledTime)}
                      </Link>
                      <div className="text-xs text-slate-500 tabular-nums">{relative(r.scheduledTime, now)}</div>
                    </Td>
                    <Td>
                      <RunStatusBadge status={r.status} skipReason={r.skipReason} />
                    </Td>
                    <Td className="capitalize">{r.trigger}</Td>
                    <Td className="text-right tabular-nums">{r.attempt}</Td>
                    <Td className="text-right tabular-nums">
                      {formatMs(durationBetween(r.scheduledTime, r.startedAt))}
                    </Td>
                    <Td className="text-right tabular-nums">{formatMs(last?.durationMs)}</Td>
                    <Td className="text-right font-mono tabular-nums">{last?.httpStatus ?? '—'}</Td>
                  </tr>
                );
              })}
            </TBody>
          </Table>
          <Pager pages={pages} nextCursor={runs.data.nextCursor} />
        </>
      )}
    </Card>
  );
}
