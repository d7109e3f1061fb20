import type { Metadata } from 'next';
import Link from 'next/link';
import { PageHeader } from '@/components/card';
import { JobForm } from '../_form/job-form';

export const metadata: Metadata = { title: 'New job' };

export default function NewJobPage() {
  return (
    <>
      <PageHeader
        breadcrumb={
          <Link href="/jobs" className="hover:text-slate-700">
            Jobs
          </Link>
        }
        title="New job"
        description="A webhook Belfry calls on the schedule you choose."
      />
      <JobForm />
    </>
  );
}
