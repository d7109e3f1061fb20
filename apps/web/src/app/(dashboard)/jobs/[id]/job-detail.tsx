'use client';
// One job: its configuration, the actions (run now, pause/resume, edit, delete), the
// run-history timeline over a chosen window, and its runs. Polls while open.
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useEffect, useMemo, useState } from 'react';
import { Button, ButtonLink } from '@/components/button';
import { Card, DefinitionList, PageHeader } from '@/components/card';
import { Dialog } from '@/components/dialog';
import { ErrorState } from '@/components/empty';
import { Loading, Spinner } from '@/components/spinner';
import { JobStatusBadge } from '@/components/status';
import { Tabs } from '@/components/tabs';
import { useToast } from '@/components/toast';
import { errorCode, errorMessage } from '../../../_lib/errors';
import { scheduleInWords, scheduleRaw, scheduleZone } from '../../../_lib/schedule';
import { formatInZone, formatLocal, formatMs, relative, useNow, viewerZone } from '../../../_lib/time';
import { useTRPC } from '../../../_lib/trpc';
import { useCan } from '../../../_lib/workspace';
import { MISFIRE_OPTIONS, OVERLAP_OPTIONS } from '../_form/options';
import { JobRuns } from './job-runs';
import { Timeline } from './timeline';

const WINDOWS = [
  { value: '15m', label: '15 min', ms: 15 * 60e3 },
  { value: '1h', label: '1 h', ms: 3600e3 },
  { value: '6h', label: '6 h', ms: 6 * 3600e3 },
  { value: '24h', label: '24 h', ms: 24 * 3600e3 },
  { value: '7d', label: '7 days', ms: 7 * 24 * 3600e3 },
] as const;
type WindowKey = (typeof WINDOWS)[number]['value'];

function percentile(sorted: number[], p: number): number | null {
  if (!sorted.length) return null;
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? null;
}

export function JobDetail({ id }: { id: string }) {
  const trpc = useTRPC();
  const router = useRouter();
  const toast = useToast();
  const queryClient = useQueryClient();
  const canWrite = useCan('member');
  const now = useNow(1_000);
  const [windowKey, setWindowKey] = useState<WindowKey>('1h');
  const [confirmDelete, setConfirmDelete] = useState(false);

  const job = useQuery({ ...trpc.jobs.get.queryOptions({ id }), refetchInterval: 5_000 });
  // Open on the smallest window that covers the job's whole life (a new job's first runs
  // fill the chart instead of a sliver at its right edge).
  const createdAt = job.data?.createdAt;
  const [windowChosen, setWindowChosen] = useState(false);
  useEffect(() => {
    if (!createdAt || windowChosen) return;
    const age = Date.now() - Date.parse(createdAt);
    setWindowKey(WINDOWS.find((w) => w.ms >= age)?.value ?? '7d');
    setWindowChosen(true);
  }, [createdAt, windowChosen]);
  // The window ends a little ahead of now so runs starting this second are inside it; it
  // moves with each poll (rounded to the second so the query key changes only then).
  const windowMs = WINDOWS.find((w) => w.value === windowKey)?.ms ?? 3600e3;
  const to = Math.ceil((now + 5_000) / 5_000) * 5_000;
  const timeline = useQuery({
    ...trpc.jobs.timeline.queryOptions({
      jobId: id,
      from: new Date(to - windowMs).toISOString(),
      to: new Date(to).toISOString(),
    }),
    refetchInterval: 3_000,
    placeholderData: keepPreviousData,
    enabled: job.isSuccess,
  });

  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.jobs.pathKey() });
  const onError = (err: unknown) => toast(errorMessage(err), 'error');
  const trigger = useMutation(
    trpc.jobs.trigger.mutationOptions({
      onSuccess: (run) => {
        toast('Run requested');
        void refresh();
        router.push(`/runs/${run.id}`);
      },
      onError,
    }),
  );
  const pause = useMutation(
    trpc.jobs.pause.mutationOptions({
      onSuccess: () => {
        toast('Job paused');
        void refresh();
      },
      onError,
    }),
  );
  const resume = useMutation(
    trpc.jobs.resume.mutationOptions({
      onSuccess: () => {
        toast('Job resumed');
        void refresh();
      },
      onError,
    }),
  );
  const remove = useMutation(
    trpc.jobs.delete.mutationOptions({
      onSuccess: () => {
        toast('Job deleted');
        void refresh();
        router.push('/jobs');
      },
      onError,
    }),
  );

  const stats = useMemo(() => {
    const points = timeline.data?.points ?? [];
    const finished = points.filter((p) => ['succeeded', 'dead'].includes(p.status));
    const lags = points
      .map((p) => p.lagMs)
      .filter((v): v is number => v !== null)
      .sort((a, b) => a - b);
    const durations = points
      .map((p) => p.durationMs)
      .filter((v): v is number => v !== null)
      .sort((a, b) => a - b);
    return {
      total: points.length,
      succeeded: points.filter((p) => p.status === 'succeeded').length,
      successRate: finished.length
        ? Math.round((points.filter((p) => p.status === 'succeeded').length / finished.length) * 100)
        : null,
      dead: points.filter((p) => p.status === 'dead').length,
      skipped: points.filter((p) => p.status === 'skipped').length,
      lagP50: percentile(lags, 0.5),
      lagP95: percentile(lags, 0.95),
      durP50: percentile(durations, 0.5),
    };
  }, [timeline.data]);

  if (job.isPending) return <Loading />;
  if (job.isError) {
    if (errorCode(job.error) === 'NOT_FOUND') {
      return (
        <ErrorState error="This job does not exist or was deleted. Its past runs are still reachable from their links." />
      );
    }
    return <ErrorState error={errorMessage(job.error)} retry={() => void job.refetch()} />;
  }
  const j = job.data;
  const zone = scheduleZone(j.schedule);
  const mine = viewerZone();

  return (
    <>
      <PageHeader
        breadcrumb={
          <Link href="/jobs" className="hover:text-slate-700">
            Jobs
          </Link>
        }
        title={
          <span className="flex items-center gap-3">
            <span className="truncate">{j.name}</span>
            <JobStatusBadge status={j.status} />
          </span>
        }
        description={<span className="font-mono text-xs text-slate-500">{j.id}</span>}
        actions={
          canWrite ? (
            <>
              <Button variant="primary" busy={trigger.isPending} onClick={() => trigger.mutate({ id })}>
                Run now
              </Button>
              {j.status === 'active' ? (
                <Button busy={pause.isPending} onClick={() => pause.mutate({ id })}>
                  Pause
                </Button>
              ) : j.status === 'paused' ? (
                <Button busy={resume.isPending} onClick={() => resume.mutate({ id })}>
                  Resume
                </Button>
              ) : null}
              <ButtonLink href={`/jobs/${id}/edit`}>Edit</ButtonLink>
              <Button variant="ghost" className="text-rose-700 hover:bg-rose-50" onClick={() => setConfirmDelete(true)}>
                Delete
              </Button>
            </>
          ) : null
        }
      />

      <div className="grid gap-6 lg:grid-cols-3">
        <Card title="Schedule" className="lg:col-span-1">
          <DefinitionList
            items={[
              [
                'Runs',
                <span key="w" className="font-medium">
                  {scheduleInWords(j.schedule)}
                </span>,
              ],
              [
                'Expression',
                <code key="r" className="font-mono text-xs">
                  {scheduleRaw(j.schedule)}
                </code>,
              ],
              ...(j.schedule.type === 'cron' ? ([['Time zone', j.schedule.timezone]] as Array<[string, string]>) : []),
              [
                'Next run',
                j.nextRunAt ? (
                  <span key="n" className="tabular-nums">
                    <span className="font-medium">{relative(j.nextRunAt, now)}</span>
                    <br />
                    <span className="text-slate-600">{formatLocal(j.nextRunAt)}</span>
                    {zone !== mine ? (
                      <>
                        <br />
                        <span className="text-slate-500">{formatInZone(j.nextRunAt, zone)}</span>
                      </>
                    ) : null}
                  </span>
                ) : (
                  <span key="n" className="text-slate-500">
                    {j.status === 'paused' ? 'Paused' : j.status === 'completed' ? 'Completed: no more runs' : '—'}
                  </span>
                ),
              ],
            ]}
          />
        </Card>
        <Card title="Target" className="lg:col-span-1">
          <DefinitionList
            items={[
              [
                'Request',
                <span key="u" className="font-mono text-xs break-all">
                  <strong>{j.target.method}</strong> {j.target.url}
                </span>,
              ],
              [
                'Headers',
                Object.keys(j.target.headers).length ? (
                  <ul key="h" className="font-mono text-xs">
                    {Object.entries(j.target.headers).map(([k, v]) => (
                      <li key={k} className="break-all">
                        {k}: {v}
                      </li>
                    ))}
                  </ul>
                ) : (
                  <span key="h" className="text-slate-500">
                    None
                  </span>
                ),
              ],
              [
                'Payload',
                j.payload === null ? (
                  <span key="p" className="text-slate-500">
                    None
                  </span>
                ) : (
                  <pre key="p" className="max-h-40 overflow-auto rounded bg-slate-50 p-2 font-mono text-xs">
                    {JSON.stringify(j.payload, null, 2)}
                  </pre>
                ),
              ],
            ]}
          />
        </Card>
        <Card title="Delivery" className="lg:col-span-1">
          <DefinitionList
            items={[
              [
                'Retries',
                `${j.retry.maxAttempts} attempts, ${j.retry.initialDelaySeconds}s → ${j.retry.maxDelaySeconds}s backoff`,
              ],
              ['Timeout', `${j.timeoutSeconds}s per attempt`],
              [
                'Priority',
                <span key="p" className="capitalize">
                  {j.priority}
                </span>,
              ],
              ['Missed runs', MISFIRE_OPTIONS.find((o) => o.value === j.misfirePolicy)?.label ?? j.misfirePolicy],
              ['Overlap', OVERLAP_OPTIONS.find((o) => o.value === j.overlapPolicy)?.label ?? j.overlapPolicy],
              ['Created', formatLocal(j.createdAt)],
            ]}
          />
        </Card>
      </div>

      <Card
        className="mt-6"
        title={
          <span className="flex items-center gap-2">
            Run history {timeline.isFetching ? <Spinner size="sm" /> : null}
          </span>
        }
        description={
          timeline.data ? (
            <span className="tabular-nums">
              {stats.total} runs
              {stats.successRate !== null ? ` · ${stats.successRate}% succeeded` : ''}
              {stats.dead ? ` · ${stats.dead} dead` : ''}
              {stats.skipped ? ` · ${stats.skipped} skipped` : ''}
              {stats.lagP50 !== null ? ` · start lag p50 ${formatMs(stats.lagP50)}, p95 ${formatMs(stats.lagP95)}` : ''}
              {stats.durP50 !== null ? ` · duration p50 ${formatMs(stats.durP50)}` : ''}
            </span>
          ) : null
        }
        actions={
          <Tabs
            label="Time window"
            value={windowKey}
            onChange={(w) => {
              setWindowChosen(true);
              setWindowKey(w);
            }}
            options={WINDOWS.map((w) => ({ value: w.value, label: w.label }))}
          />
        }
      >
        {timeline.isError ? (
          <ErrorState error={errorMessage(timeline.error)} />
        ) : !timeline.data ? (
          <Loading />
        ) : timeline.data.points.length === 0 ? (
          <p className="py-8 text-center text-sm text-slate-500">
            No runs in the last {WINDOWS.find((w) => w.value === windowKey)?.label}.
            {j.nextRunAt ? ` The next one is ${relative(j.nextRunAt, now)}.` : ''}
          </p>
        ) : (
          <>
            <Timeline data={timeline.data} now={now} />
            {timeline.data.truncated ? (
              <p className="mt-2 text-xs text-amber-700">
                Showing the newest 1,000 runs of this window; pick a shorter window to see all.
              </p>
            ) : null}
          </>
        )}
      </Card>

      <JobRuns jobId={id} />

      <Dialog
        open={confirmDelete}
        onClose={() => setConfirmDelete(false)}
        title={`Delete ${j.name}?`}
        description="The job stops running and its pending runs are cancelled. Its run history is kept. This cannot be undone."
        footer={
          <>
            <Button onClick={() => setConfirmDelete(false)}>Cancel</Button>
            <Button variant="danger" busy={remove.isPending} onClick={() => remove.mutate({ id })}>
              Delete job
            </Button>
          </>
        }
      />
    </>
  );
}
