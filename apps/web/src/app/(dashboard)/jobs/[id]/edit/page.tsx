import type { Metadata } from 'next';
import { EditJob } from './edit-job';

export const metadata: Metadata = { title: 'Edit job' };

export default async function EditJobPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <EditJob id={id} />;
}
