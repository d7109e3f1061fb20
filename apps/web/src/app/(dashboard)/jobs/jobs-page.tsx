'use client';
// The jobs table: search by name, filter by status, cursor pagination, live (polled) last
// outcomes and next runs. With no jobs at all it becomes the getting-started guide.
import type { JobStatus } from '@belfry/client';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { ButtonLink } from '@/components/button';
import { PageHeader } from '@/components/card';
import { Empty, ErrorState } from '@/components/empty';
import { Input } from '@/components/field';
import { Pager, useCursorPages } from '@/components/pager';
import { Loading, Spinner } from '@/components/spinner';
import { Tabs } from '@/components/tabs';
import { errorMessage } from '../../_lib/errors';
import { useNow, viewerZone } from '../../_lib/time';
import { useTRPC } from '../../_lib/trpc';
import { useCan } from '../../_lib/workspace';
import { GettingStarted } from './getting-started';
import { JobsTable } from './jobs-table';

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
  const pages = useCursorPages();
  const debouncedSearch = useDebounced(search.trim(), 250);
  const { cursor } = pages;

  // A new filter starts again from the first page.
  // biome-ignore lint/correctness/useExhaustiveDependencies: reset on filter change only
  useEffect(() => pages.reset(), [debouncedSearch, status]);

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
  const pageIndex = pages.index;
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
          <JobsTable data={data} now={now} />
        )}
        <Pager pages={pages} nextCursor={nextCursor} labels={['Previous', 'Next']}>
          {data.length
            ? `${pageIndex * PAGE_SIZE + 1}–${pageIndex * PAGE_SIZE + data.length}${debouncedSearch ? '' : ` of ${filteredTotal}`}`
            : ''}
        </Pager>
      </div>
    </>
  );
}
