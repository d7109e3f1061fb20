'use client';
// The dead-letter queue: runs whose attempts ran out (or whose failure was not worth
// retrying). Filter by job and by when they died; replay or discard selected runs, or
// replay everything matching after seeing how many that is.
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useRouter, useSearchParams } from 'next/navigation';
import { useEffect, useState } from 'react';
import { Button } from '@/components/button';
import { PageHeader } from '@/components/card';
import { Empty, ErrorState } from '@/components/empty';
import { FilterSelect } from '@/components/form-fields';
import { Pager, useCursorPages } from '@/components/pager';
import { Loading, Spinner } from '@/components/spinner';
import { useToast } from '@/components/toast';
import { errorMessage } from '../../_lib/errors';
import { useNow } from '../../_lib/time';
import { useTRPC } from '../../_lib/trpc';
import { plural, useToggleSet } from '../../_lib/use-toggle-set';
import { useCan } from '../../_lib/workspace';
import { type DeadLetterFilter, DiscardDialog, ReplayAllDialog } from './dead-letter-dialogs';
import { DeadLetterTable } from './dead-letter-table';

const PERIODS = [
  { value: '', label: 'Any time', ms: 0 },
  { value: '1h', label: 'Last hour', ms: 3600e3 },
  { value: '24h', label: 'Last 24 hours', ms: 24 * 3600e3 },
  { value: '7d', label: 'Last 7 days', ms: 7 * 24 * 3600e3 },
] as const;
type Period = (typeof PERIODS)[number]['value'];
const PAGE = 50;

export function DeadLetterPage() {
  const trpc = useTRPC();
  const toast = useToast();
  const queryClient = useQueryClient();
  const router = useRouter();
  const params = useSearchParams();
  const canWrite = useCan('member');
  const now = useNow(5_000);
  const jobId = params.get('job') ?? '';
  const [period, setPeriod] = useState<Period>('');
  const pages = useCursorPages();
  const selection = useToggleSet<string>();
  const [confirm, setConfirm] = useState<null | 'all' | 'discard'>(null);
  // "since" is fixed when the period is picked, so polling does not shift it every second.
  const [since, setSince] = useState<string | undefined>(undefined);
  // biome-ignore lint/correctness/useExhaustiveDependencies: reset when the period changes
  useEffect(() => {
    const ms = PERIODS.find((p) => p.value === period)?.ms ?? 0;
    setSince(ms ? new Date(Date.now() - ms).toISOString() : undefined);
    pages.reset();
    selection.clear();
  }, [period]);
  // biome-ignore lint/correctness/useExhaustiveDependencies: reset when the job filter changes
  useEffect(() => {
    pages.reset();
    selection.clear();
  }, [jobId]);

  const filter: DeadLetterFilter = { ...(jobId ? { jobId } : {}), ...(since ? { since } : {}) };
  const list = useQuery({
    ...trpc.deadLetter.list.queryOptions({ ...filter, limit: PAGE, ...(pages.cursor ? { cursor: pages.cursor } : {}) }),
    refetchInterval: 5_000,
    placeholderData: keepPreviousData,
  });
  const jobs = useQuery({ ...trpc.deadLetter.jobs.queryOptions(), refetchInterval: 10_000 });

  const settled = (message: string) => {
    toast(message);
    setConfirm(null);
    selection.clear();
    void queryClient.invalidateQueries({ queryKey: trpc.deadLetter.pathKey() });
  };
  const onError = (err: unknown) => toast(errorMessage(err), 'error');
  const replay = useMutation(
    trpc.deadLetter.replay.mutationOptions({
      onSuccess: ({ replayed }) => settled(`Replayed ${plural(replayed, 'run')}`),
      onError,
    }),
  );
  const replayAll = useMutation(
    trpc.deadLetter.replayMatching.mutationOptions({
      onSuccess: ({ replayed }) => settled(`Replayed ${plural(replayed, 'run')}`),
      onError,
    }),
  );
  const discard = useMutation(
    trpc.deadLetter.discard.mutationOptions({
      onSuccess: ({ discarded }) => settled(`Discarded ${plural(discarded, 'run')}`),
      onError,
    }),
  );

  const rows = list.data?.data ?? [];
  const setJob = (value: string) =>
    router.replace(value ? `/dead-letter?job=${encodeURIComponent(value)}` : '/dead-letter');
  const jobName = jobs.data?.find((j) => j.jobId === jobId)?.name;
  const periodLabel = PERIODS.find((p) => p.value === period)?.label.toLowerCase();

  return (
    <>
      <PageHeader
        title="Dead letter"
        description="Runs whose attempts ran out, or that failed in a way not worth retrying. Replay them once the target is fixed, or discard them."
      />
      <div className="rounded-lg border border-slate-200 bg-white shadow-xs">
        <div className="flex flex-wrap items-end justify-between gap-3 border-b border-slate-200 px-4 py-3">
          <div className="flex flex-wrap items-end gap-3">
            <FilterSelect
              id="dlq-job"
              label="Job"
              value={jobId}
              onChange={(e) => setJob(e.target.value)}
              className="w-64"
            >
              <option value="">All jobs</option>
              {jobId && !jobName ? <option value={jobId}>{jobId}</option> : null}
              {(jobs.data ?? []).map((j) => (
                <option key={j.jobId} value={j.jobId}>
                  {j.name} ({j.count})
                </option>
              ))}
            </FilterSelect>
            <FilterSelect
              id="dlq-period"
              label="Died"
              value={period}
              onChange={(e) => setPeriod(e.target.value as Period)}
              className="w-44"
            >
              {PERIODS.map((p) => (
                <option key={p.value} value={p.value}>
                  {p.label}
                </option>
              ))}
            </FilterSelect>
            {list.isFetching ? <Spinner size="sm" /> : null}
          </div>
          {canWrite ? (
            <div className="flex flex-wrap gap-2">
              <Button
                disabled={!selection.size}
                busy={replay.isPending}
                onClick={() => replay.mutate({ runIds: selection.values() })}
              >
                Replay selected{selection.size ? ` (${selection.size})` : ''}
              </Button>
              <Button disabled={!selection.size} onClick={() => setConfirm('discard')}>
                Discard selected
              </Button>
              <Button variant="primary" disabled={!rows.length} onClick={() => setConfirm('all')}>
                Replay all matching …
              </Button>
            </div>
          ) : null}
        </div>

        {list.isPending ? (
          <Loading />
        ) : list.isError ? (
          <ErrorState error={errorMessage(list.error)} retry={() => void list.refetch()} />
        ) : rows.length === 0 ? (
          <Empty title={jobId || since ? 'Nothing dead matches these filters' : 'The dead-letter queue is empty'}>
            {jobId || since
              ? 'Try all jobs or any time.'
              : 'Runs land here when every attempt has failed, or when the target answers with an error that retrying will not fix (a 4xx other than 408 and 429).'}
          </Empty>
        ) : (
          <>
            <DeadLetterTable rows={rows} selection={selection} canWrite={canWrite} now={now} />
            <Pager pages={pages} nextCursor={list.data.nextCursor}>
              {selection.size ? `${selection.size} selected` : ''}
            </Pager>
          </>
        )}
      </div>

      <ReplayAllDialog
        open={confirm === 'all'}
        onClose={() => setConfirm(null)}
        filter={filter}
        scope={
          <>
            {jobName ? (
              <>
                of <strong>{jobName}</strong>{' '}
              </>
            ) : (
              'of every job '
            )}
            {since ? `that died ${periodLabel}` : ''}
          </>
        }
        busy={replayAll.isPending}
        onReplay={() => replayAll.mutate(filter)}
      />
      <DiscardDialog
        open={confirm === 'discard'}
        onClose={() => setConfirm(null)}
        count={selection.size}
        busy={discard.isPending}
        onDiscard={() => discard.mutate({ runIds: selection.values() })}
      />
    </>
  );
}
