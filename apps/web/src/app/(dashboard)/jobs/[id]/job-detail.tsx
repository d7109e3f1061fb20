'use client';
// One job: its open incidents, its configuration and alert settings, the actions (run now,
// pause/resume, edit, delete), the run-history timeline over a chosen window, and its runs.
// Polls while open.
import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { PageHeader } from '@/components/card';
import { ErrorState } from '@/components/empty';
import { Loading } from '@/components/spinner';
import { JobStatusBadge } from '@/components/status';
import { errorCode, errorMessage } from '../../../_lib/errors';
import { useNow } from '../../../_lib/time';
import { useTRPC } from '../../../_lib/trpc';
import { useCan } from '../../../_lib/workspace';
import { JobActions } from './job-actions';
import { JobAlertSettings, JobIncidents } from './job-alerts';
import { JobConfig } from './job-config';
import { JobRuns } from './job-runs';
import { RunHistory } from './run-history';

export function JobDetail({ id }: { id: string }) {
  const trpc = useTRPC();
  const canWrite = useCan('member');
  const now = useNow(1_000);
  const job = useQuery({ ...trpc.jobs.get.queryOptions({ id }), refetchInterval: 5_000 });

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
        actions={canWrite ? <JobActions id={id} name={j.name} status={j.status} /> : null}
      />
      <JobIncidents jobId={id} now={now} />
      <JobConfig job={j} now={now} />
      <JobAlertSettings jobId={id} canWrite={canWrite} />
      <RunHistory jobId={id} createdAt={j.createdAt} nextRunAt={j.nextRunAt} now={now} />
      <JobRuns jobId={id} />
    </>
  );
}
