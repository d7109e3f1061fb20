'use client';
// The dead-letter queue: runs whose attempts ran out (or whose failure was not worth
// retrying). Filter by job and by when they died; replay or discard selected runs, or
// replay everything matching after seeing how many that is.
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import Link from 'next/link';
import { useRouter, useSearchParams } from 'next/navigation';
import { useEffect, useMemo, useState } from 'react';
import { Button } from '@/components/button';
import { PageHeader } from '@/components/card';
import { Dialog } from '@/components/dialog';
import { Empty, ErrorState } from '@/components/empty';
import { Select } from '@/components/field';
import { Loading, Spinner } from '@/components/spinner';
import { Table, TBody, Td, Th } from '@/components/table';
import { useToast } from '@/components/toast';
import { errorMessage } from '../../_lib/errors';
import { formatLocal, relative, useNow } from '../../_lib/time';
import { useTRPC } from '../../_lib/trpc';
import { useCan } from '../../_lib/workspace';

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
  const [cursors, setCursors] = useState<string[]>([]);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [confirm, setConfirm] = useState<null | 'all' | 'discard'>(null);
  // "since" is fixed when the period is picked, so polling does not shift it every second.
  const [since, setSince] = useState<string | undefined>(undefined);
  useEffect(() => {
    const ms = PERIODS.find((p) => p.value === period)?.ms ?? 0;
    setSince(ms ? new Date(Date.now() - ms).toISOString() : undefined);
    setCursors([]);
    setSelected(new Set());
  }, [period]);
  // biome-ignore lint/correctness/useExhaustiveDependencies: reset when the job filter changes
  useEffect(() => {
    setCursors([]);
    setSelected(new Set());
  }, [jobId]);

  const filter = { ...(jobId ? { jobId } : {}), ...(since ? { since } : {}) };
  const cursor = cursors[cursors.length - 1];
  const list = useQuery({
    ...trpc.deadLetter.list.queryOptions({ ...filter, limit: PAGE, ...(cursor ? { cursor } : {}) }),
    refetchInterval: 5_000,
    placeholderData: keepPreviousData,
  });
  const jobs = useQuery({ ...trpc.deadLetter.jobs.queryOptions(), refetchInterval: 10_000 });
  const count = useQuery({
    ...trpc.deadLetter.count.queryOptions(filter),
    enabled: confirm === 'all',
    refetchInterval: confirm === 'all' ? 3_000 : false,
  });

  const invalidate = () => queryClient.invalidateQueries({ queryKey: trpc.deadLetter.pathKey() });
  const onError = (err: unknown) => toast(errorMessage(err), 'error');
  const replay = useMutation(
    trpc.deadLetter.replay.mutationOptions({
      onSuccess: ({ replayed }) => {
        toast(`Replayed ${replayed} run${replayed === 1 ? '' : 's'}`);
        setSelected(new Set());
        void invalidate();
      },
      onError,
    }),
  );
  const replayAll = useMutation(
    trpc.deadLetter.replayMatching.mutationOptions({
      onSuccess: ({ replayed }) => {
        toast(`Replayed ${replayed} run${replayed === 1 ? '' : 's'}`);
        setConfirm(null);
        setSelected(new Set());
        void invalidate();
      },
      onError,
    }),
  );
  const discard = useMutation(
    trpc.deadLetter.discard.mutationOptions({
      onSuccess: ({ discarded }) => {
        toast(`Discarded ${discarded} run${discarded === 1 ? '' : 's'}`);
        setConfirm(null);
        setSelected(new Set());
        void invalidate();
      },
      onError,
    }),
  );

  const rows = list.data?.data ?? [];
  const pageIds = useMemo(() => rows.map((r) => r.id), [rows]);
  const allOnPage = pageIds.length > 0 && pageIds.every((id) => selected.has(id));
  const toggle = (id: string) =>
    setSelected((s) => {
      const next = new Set(s);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });
  const setJob = (value: string) =>
    router.replace(value ? `/dead-letter?job=${encodeURIComponent(value)}` : '/dead-letter');
  const jobName = jobs.data?.find((j) => j.jobId === jobId)?.name;

  return (
    <>
      <PageHeader
        title="Dead letter"
        description="Runs whose attempts ran out, or that failed in a way not worth retrying. Replay them once the target is fixed, or discard them."
      />
      <div className="rounded-lg border border-slate-200 bg-white shadow-xs">
        <div className="flex flex-wrap items-end justify-between gap-3 border-b border-slate-200 px-4 py-3">
          <div className="flex flex-wrap items-end gap-3">
            <div>
              <label htmlFor="dlq-job" className="mb-1 block text-xs font-medium text-slate-500">
                Job
              </label>
              <Select id="dlq-job" value={jobId} onChange={(e) => setJob(e.target.value)} className="w-64">
                <option value="">All jobs</option>
                {jobId && !jobName ? <option value={jobId}>{jobId}</option> : null}
                {(jobs.data ?? []).map((j) => (
                  <option key={j.jobId} value={j.jobId}>
                    {j.name} ({j.count})
                  </option>
                ))}
              </Select>
            </div>
            <div>
              <label htmlFor="dlq-period" className="mb-1 block text-xs font-medium text-slate-500">
                Died
              </label>
              <Select
                id="dlq-period"
                value={period}
                onChange={(e) => setPeriod(e.target.value as Period)}
                className="w-44"
              >
                {PERIODS.map((p) => (
                  <option key={p.value} value={p.value}>
                    {p.label}
                  </option>
                ))}
              </Select>
            </div>
            {list.isFetching ? <Spinner size="sm" /> : null}
          </div>
          {canWrite ? (
            <div className="flex flex-wrap gap-2">
              <Button
                disabled={!selected.size}
                busy={replay.isPending}
                onClick={() => replay.mutate({ runIds: [...selected] })}
              >
                Replay selected{selected.size ? ` (${selected.size})` : ''}
              </Button>
              <Button disabled={!selected.size} onClick={() => setConfirm('discard')}>
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
            <Table label="Dead runs">
              <thead>
                <tr>
                  <Th className="w-10">
                    {canWrite ? (
                      <input
                        type="checkbox"
                        aria-label="Select all runs on this page"
                        checked={allOnPage}
                        onChange={() =>
                          setSelected((s) => {
                            const next = new Set(s);
                            for (const id of pageIds) {
                              if (allOnPage) next.delete(id);
                              else next.add(id);
                            }
                            return next;
                          })
                        }
                        className="h-4 w-4 accent-indigo-600"
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
                {rows.map((r) => {
                  const last = r.attempts[r.attempts.length - 1];
                  return (
                    <tr key={r.id} className={selected.has(r.id) ? 'bg-indigo-50/50' : 'hover:bg-slate-50'}>
                      <Td>
                        {canWrite ? (
                          <input
                            type="checkbox"
                            aria-label={`Select run of ${r.jobName} scheduled ${formatLocal(r.scheduledTime)}`}
                            checked={selected.has(r.id)}
                            onChange={() => toggle(r.id)}
                            className="h-4 w-4 accent-indigo-600"
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
                        <span className="line-clamp-2 text-rose-700" title={last?.error ?? r.lastError ?? ''}>
                          {last?.httpStatus && !(last.error ?? '').startsWith(`HTTP ${last.httpStatus}`) ? (
                            <span className="font-mono">HTTP {last.httpStatus} · </span>
                          ) : null}
                          {last?.error ?? r.lastError ?? '—'}
                        </span>
                      </Td>
                      <Td className="text-right">
                        <Link href={`/runs/${r.id}`} className="text-sm font-medium text-indigo-600 hover:underline">
                          Details
                        </Link>
                      </Td>
                    </tr>
                  );
                })}
              </TBody>
            </Table>
            <div className="flex items-center justify-between border-t border-slate-200 px-4 py-2.5 text-sm text-slate-600">
              <span>{selected.size ? `${selected.size} selected` : ''}</span>
              <div className="flex gap-2">
                <Button size="sm" disabled={!cursors.length} onClick={() => setCursors((c) => c.slice(0, -1))}>
                  Newer
                </Button>
                <Button
                  size="sm"
                  disabled={!list.data.nextCursor}
                  onClick={() => list.data.nextCursor && setCursors((c) => [...c, list.data.nextCursor as string])}
                >
                  Older
                </Button>
              </div>
            </div>
          </>
        )}
      </div>

      <Dialog
        open={confirm === 'all'}
        onClose={() => setConfirm(null)}
        title="Replay all matching dead runs?"
        description={
          <>
            Every dead run{' '}
            {jobName ? (
              <>
                of <strong>{jobName}</strong>{' '}
              </>
            ) : (
              'of every job '
            )}
            {since ? `that died ${PERIODS.find((p) => p.value === period)?.label.toLowerCase()}` : ''} runs again now,
            as a new run linked to the original.
          </>
        }
        footer={
          <>
            <Button onClick={() => setConfirm(null)}>Cancel</Button>
            <Button
              variant="primary"
              disabled={!count.data?.count}
              busy={replayAll.isPending}
              onClick={() => replayAll.mutate(filter)}
            >
              {count.data ? `Replay ${count.data.count} run${count.data.count === 1 ? '' : 's'}` : 'Replay'}
            </Button>
          </>
        }
      >
        <p className="text-sm text-slate-700" aria-live="polite">
          {count.isPending ? (
            <Spinner label="Counting …" />
          ) : count.isError ? (
            errorMessage(count.error)
          ) : (
            <>
              Dry run: <strong className="tabular-nums">{count.data.count}</strong> run
              {count.data.count === 1 ? '' : 's'} would be replayed.
            </>
          )}
        </p>
      </Dialog>

      <Dialog
        open={confirm === 'discard'}
        onClose={() => setConfirm(null)}
        title={`Discard ${selected.size} dead run${selected.size === 1 ? '' : 's'}?`}
        description="They leave the dead-letter queue marked cancelled and will not run again. Their history stays."
        footer={
          <>
            <Button onClick={() => setConfirm(null)}>Cancel</Button>
            <Button variant="danger" busy={discard.isPending} onClick={() => discard.mutate({ runIds: [...selected] })}>
              Discard
            </Button>
          </>
        }
      />
    </>
  );
}
