'use client';
// The workspace's limits and what it uses of them (the same numbers as GET /api/v1/limits):
// jobs, scheduled runs per minute, API keys as meters; concurrency and the API rate as plain
// values. Operators change them with `belfry admin set-limits`.
import { useQuery } from '@tanstack/react-query';
import { Card, PageHeader } from '@/components/card';
import { ErrorState } from '@/components/empty';
import { Loading } from '@/components/spinner';
import { errorMessage } from '../../_lib/errors';
import { useTRPC } from '../../_lib/trpc';

function formatNumber(n: number): string {
  return n.toLocaleString('en-US', { maximumFractionDigits: 3 });
}

function Meter({ label, used, limit, hint }: { label: string; used: number; limit: number; hint: string }) {
  const share = limit > 0 ? Math.min(1, used / limit) : 1;
  const tone = share >= 1 ? 'bg-rose-600' : share >= 0.8 ? 'bg-amber-500' : 'bg-indigo-600';
  return (
    <div className="rounded-lg border border-slate-200 bg-white p-4 shadow-xs">
      <div className="text-xs font-medium text-slate-500">{label}</div>
      <div className="mt-1 text-2xl font-semibold tracking-tight text-slate-900 tabular-nums">
        {formatNumber(used)} <span className="text-base font-normal text-slate-500">of {formatNumber(limit)}</span>
      </div>
      <meter
        className="sr-only"
        aria-label={label}
        min={0}
        max={limit}
        value={used}
        aria-valuetext={`${formatNumber(used)} of ${formatNumber(limit)}`}
      />
      <div aria-hidden className="mt-2 h-2 overflow-hidden rounded-full bg-slate-100">
        <div className={`h-full ${tone}`} style={{ width: `${share * 100}%` }} />
      </div>
      <div className="mt-1.5 text-xs text-slate-500">{hint}</div>
    </div>
  );
}

export function LimitsPage() {
  const trpc = useTRPC();
  const limits = useQuery(trpc.limits.get.queryOptions());
  const header = (
    <PageHeader
      title="Limits"
      description="What this workspace may take of what all workspaces share. A change that would pass a limit is refused with a message saying which one. Operators change limits with belfry admin set-limits."
    />
  );
  if (limits.isPending)
    return (
      <>
        {header}
        <Loading />
      </>
    );
  if (limits.isError)
    return (
      <>
        {header}
        <ErrorState error={errorMessage(limits.error)} retry={() => void limits.refetch()} />
      </>
    );
  const l = limits.data;
  return (
    <>
      {header}
      <div className="grid gap-4 sm:grid-cols-2 lg:grid-cols-3">
        <Meter label="Jobs" used={l.usage.jobs} limit={l.maxJobs} hint="Deleted jobs do not count." />
        <Meter
          label="Scheduled runs per minute"
          used={l.usage.runsPerMinute}
          limit={l.maxRunsPerMinute}
          hint="Over all active jobs: an every-second schedule counts 60, a daily one almost nothing. Paused jobs do not count."
        />
        <Meter
          label="API keys"
          used={l.usage.apiKeys}
          limit={l.maxApiKeys}
          hint="Keys that still work; revoked and expired ones do not count."
        />
      </div>
      <Card className="mt-6" title="Throughput">
        <dl className="grid gap-4 sm:grid-cols-2">
          <div>
            <dt className="text-xs font-medium text-slate-500">Runs in flight at once</dt>
            <dd className="mt-1 text-lg font-semibold text-slate-900 tabular-nums" data-testid="max-concurrency">
              {formatNumber(l.maxConcurrency)}
            </dd>
            <dd className="text-xs text-slate-500">More due runs wait their turn; other workspaces are not held up.</dd>
          </div>
          <div>
            <dt className="text-xs font-medium text-slate-500">API requests per second, per key</dt>
            <dd className="mt-1 text-lg font-semibold text-slate-900 tabular-nums" data-testid="rate-limit">
              {formatNumber(l.rateLimitPerSecond)}
            </dd>
            <dd className="text-xs text-slate-500">
              Bursts of twice that; past it the API answers 429 with Retry-After.
            </dd>
          </div>
        </dl>
      </Card>
    </>
  );
}
