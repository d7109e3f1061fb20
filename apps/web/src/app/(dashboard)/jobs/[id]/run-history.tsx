'use client';
// The run-history card of a job: a time window to pick, the timeline of the runs in it, and
// their numbers (success rate, start lag and duration percentiles). Polls.
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useEffect, useMemo, useState } from 'react';
import { Card } from '@/components/card';
import { ErrorState } from '@/components/empty';
import { Loading, Spinner } from '@/components/spinner';
import { Tabs } from '@/components/tabs';
import { errorMessage } from '../../../_lib/errors';
import { formatMs, relative } from '../../../_lib/time';
import { useTRPC } from '../../../_lib/trpc';
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

function ascending(values: (number | null)[]): number[] {
  return values.filter((v): v is number => v !== null).sort((a, b) => a - b);
}

interface Point {
  status: string;
  lagMs: number | null;
  durationMs: number | null;
}

function summarize(points: Point[]) {
  const succeeded = points.filter((p) => p.status === 'succeeded').length;
  const finished = points.filter((p) => ['succeeded', 'dead'].includes(p.status)).length;
  const lags = ascending(points.map((p) => p.lagMs));
  const durations = ascending(points.map((p) => p.durationMs));
  return {
    total: points.length,
    successRate: finished ? Math.round((succeeded / finished) * 100) : null,
    dead: points.filter((p) => p.status === 'dead').length,
    skipped: points.filter((p) => p.status === 'skipped').length,
    lagP50: percentile(lags, 0.5),
    lagP95: percentile(lags, 0.95),
    durP50: percentile(durations, 0.5),
  };
}

/** Opens on the smallest window that covers the job's whole life, until the viewer picks one. */
function useWindow(createdAt: string) {
  const [windowKey, setWindowKey] = useState<WindowKey>('1h');
  const [chosen, setChosen] = useState(false);
  useEffect(() => {
    if (chosen) return;
    const age = Date.now() - Date.parse(createdAt);
    setWindowKey(WINDOWS.find((w) => w.ms >= age)?.value ?? '7d');
    setChosen(true);
  }, [createdAt, chosen]);
  const choose = (key: WindowKey) => {
    setChosen(true);
    setWindowKey(key);
  };
  return [windowKey, choose] as const;
}

export function RunHistory({
  jobId,
  createdAt,
  nextRunAt,
  now,
}: {
  jobId: string;
  createdAt: string;
  nextRunAt: string | null;
  now: number;
}) {
  const trpc = useTRPC();
  const [windowKey, setWindowKey] = useWindow(createdAt);
  // The window ends a little ahead of now so runs starting this second are inside it; it
  // moves with each poll (rounded to 5 s so the query key changes only then).
  const windowMs = WINDOWS.find((w) => w.value === windowKey)?.ms ?? 3600e3;
  const to = Math.ceil((now + 5_000) / 5_000) * 5_000;
  const timeline = useQuery({
    ...trpc.jobs.timeline.queryOptions({
      jobId,
      from: new Date(to - windowMs).toISOString(),
      to: new Date(to).toISOString(),
    }),
    refetchInterval: 3_000,
    placeholderData: keepPreviousData,
  });
  const stats = useMemo(() => summarize(timeline.data?.points ?? []), [timeline.data]);

  return (
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
          onChange={setWindowKey}
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
          {nextRunAt ? ` The next one is ${relative(nextRunAt, now)}.` : ''}
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
  );
}
