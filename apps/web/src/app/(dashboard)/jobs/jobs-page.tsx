'use client';
// The jobs table: search by name, filter by status, cursor pagination, live (polled) last
// outcomes and next runs. With no jobs at all it becomes the getting-started guide.
import type { JobStatus } from '@belfry/core/vocabulary';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { useEffect, useState } from 'react';
import { Button, ButtonLink } from '@/components/button';
import { PageHeader } from '@/components/card';
import { Empty, ErrorState } from '@/components/empty';
import { Input } from '@/components/field';
import { Loading, Spinner } from '@/components/spinner';
import { JobStatusBadge, RunStatusBadge, Sparkline } from '@/components/status';
import { Table, TBody, Td, Th } from '@/components/table';
import { Tabs } from '@/components/tabs';
import { errorMessage } from '../../_lib/errors';
import { scheduleInWords, scheduleRaw, scheduleZone } from '../../_lib/schedule';
import { formatCompact, formatInZone, relative, useNow, viewerZone } from '../../_lib/time';
import { useTRPC } from '../../_lib/trpc';
import { useCan } from '../../_lib/workspace';
import { GettingStarted } from './getting-started';

type StatusFilter = 'all' | JobStatus;
const PAGE_SIZE = 50;

function useDebounced<T>(value: T, ms: number): T {
  const [debounced, setDebounced] = useState(value);
  useEffect(() => {
    const id = setTimeout(() => setDebounced(value), ms);
    return () => clearTimeout(id);
  }, [value, ms]);
  return debounced;
}

export function JobsPage() {
  const trpc = useTRPC();
  const canWrite = useCan('member');
  const now = useNow(1_000);
  const [search, setSearch] = useState('');
  const [status, setStatus] = useState<StatusFilter>('all');
  // Cursors of the pages before the current one; the current page's cursor is the last.
  const [cursors, setCursors] = useState<string[]>([]);
  const debouncedSearch = useDebounced(search.trim(), 250);
  const cursor = cursors[cursors.length - 1];

  // A new filter starts again from the first page.
  // biome-ignore lint/correctness/useExhaustiveDependencies: reset on filter change only
  useEffect(() => setCursors([]), [debouncedSearch, status]);

  const jobs = useQuery({
    ...trpc.jobs.list.queryOptions({
      limit: PAGE_SIZE,
      ...(debouncedSearch ? { search: debouncedSearch } : {}),
      ...(status !== 'all' ? { status } : {}),
      ...(cursor ? { cursor } : {}),
    }),
    refetchInterval: 3_000,
    placeholderData: keepPreviousData,
  });

  const header = (
    <PageHeader
      title="Jobs"
      description={`Webhooks Belfry calls on a schedule. Times are shown in your time zone (${viewerZone()}) and, where it differs, the job's.`}
      actions={
        canWrite ? (
          <ButtonLink href="/jobs/new" variant="primary">
            New job
          </ButtonLink>
        ) : null
      }
    />
  );

  if (jobs.isPending)
    return (
      <>
        {header}
        <Loading />
      </>
    );
  if (jobs.isError)
    return (
      <>
        {header}
        <ErrorState error={errorMessage(jobs.error)} retry={() => void jobs.refetch()} />
      </>
    );

  const { data, nextCursor, counts } = jobs.data;
  if (counts.all === 0 && !debouncedSearch) {
    return (
      <>
        {header}
        <GettingStarted canWrite={canWrite} />
      </>
    );
  }
  const pageIndex = cursors.length;
  const filteredTotal = status === 'all' ? counts.all : counts[status];

  return (
    <>
      {header}
      <div className="rounded-lg border border-slate-200 bg-white shadow-xs">
        <div className="flex flex-wrap items-center justify-between gap-3 border-b border-slate-200 px-4 py-3">
          <Tabs
            label="Filter by status"
            value={status}
            onChange={setStatus}
            options={[
              { value: 'all', label: 'All', count: counts.all },
              { value: 'active', label: 'Active', count: counts.active },
              { value: 'paused', label: 'Paused', count: counts.paused },
              { value: 'completed', label: 'Completed', count: counts.completed },
            ]}
          />
          <div className="flex items-center gap-2">
            {jobs.isFetching && jobs.isPlaceholderData ? <Spinner size="sm" /> : null}
            <label htmlFor="job-search" className="sr-only">
              Search jobs by name
            </label>
            <Input
              id="job-search"
              type="search"
              placeholder="Search by name …"
              value={search}
              onChange={(e) => setSearch(e.target.value)}
              className="w-64"
            />
          </div>
        </div>
        {data.length === 0 ? (
          <Empty title="No jobs match">
            {debouncedSearch ? <>No job name contains “{debouncedSearch}”.</> : 'No jobs have this status.'}{' '}
            <button
              type="button"
              className="font-medium text-indigo-600"
              onClick={() => {
                setSearch('');
                setStatus('all');
              }}
            >
              Clear filters
            </button>
          </Empty>
        ) : (
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
                      <div className="truncate text-xs text-slate-500" title={job.target.url}>
                        <span className="font-mono">{job.target.method}</span> {job.target.url}
                      </div>
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
                            <div className="text-xs text-slate-400 tabular-nums">
                              {formatCompact(job.nextRunAt, zone)}
                            </div>
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
                          <span className="text-xs text-slate-500 tabular-nums">
                            {relative(last.scheduledTime, now)}
                          </span>
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
        )}
        <div className="flex items-center justify-between border-t border-slate-200 px-4 py-2.5 text-sm text-slate-600">
          <span className="tabular-nums">
            {data.length
              ? `${pageIndex * PAGE_SIZE + 1}–${pageIndex * PAGE_SIZE + data.length}${debouncedSearch ? '' : ` of ${filteredTotal}`}`
              : ''}
          </span>
          <div className="flex gap-2">
            <Button size="sm" disabled={pageIndex === 0} onClick={() => setCursors((c) => c.slice(0, -1))}>
              Previous
            </Button>
            <Button
              size="sm"
              disabled={!nextCursor}
              onClick={() => nextCursor && setCursors((c) => [...c, nextCursor])}
            >
              Next
            </Button>
          </div>
        </div>
      </div>
    </>
  );
}
