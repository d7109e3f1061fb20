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
  if (job.isPending) return <Loading />;
  if (job.isError) return <ErrorState error={errorMessage(job.error)} retry={() => void job.refetch()} />;
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
      {job.data.target.type === 'http' ? (
        <JobForm job={{ ...job.data, target: job.data.target }} />
      ) : (
        // The form edits HTTP targets; other kinds change through the API or CLI (PATCH /jobs/{id}).
        <p role="note" className="m-4 rounded-md border border-slate-200 bg-slate-50 px-4 py-3 text-sm text-slate-700">
          This job's target is a {job.data.target.type} target; change it with the API or the CLI.
        </p>
      )}
    </>
  );
}
