'use client';
import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { PageHeader } from '@/components/card';
import { ErrorState } from '@/components/empty';
import { Loading } from '@/components/spinner';
import { errorMessage } from '../../../../_lib/errors';
import { useTRPC } from '../../../../_lib/trpc';
import { JobForm } from '../../_form/job-form';

export function EditJob({ id }: { id: string }) {
  const trpc = useTRPC();
  // Not polled: the form keeps what the user typed.
  const job = useQuery({
    ...trpc.jobs.get.queryOptions({ id }),
    refetchOnWindowFocus: false,
    staleTime: Number.POSITIVE_INFINITY,
  });
  const alerts = useQuery({
    ...trpc.alerts.forJob.queryOptions({ jobId: id }),
    refetchOnWindowFocus: false,
    staleTime: Number.POSITIVE_INFINITY,
  });
  if (job.isPending || alerts.isPending) return <Loading />;
  if (job.isError) return <ErrorState error={errorMessage(job.error)} retry={() => void job.refetch()} />;
  if (alerts.isError) return <ErrorState error={errorMessage(alerts.error)} retry={() => void alerts.refetch()} />;
  return (
    <>
      <PageHeader
        breadcrumb={
          <>
            <Link href="/jobs" className="hover:text-slate-700">
              Jobs
            </Link>{' '}
            /{' '}
            <Link href={`/jobs/${id}`} className="hover:text-slate-700">
              {job.data.name}
            </Link>
          </>
        }
        title={`Edit ${job.data.name}`}
        description="Changing the schedule restarts it from now; other changes apply to the next run."
      />
      <JobForm job={job.data} effectiveAlerts={alerts.data.effective} />
    </>
  );
}
