import type { Metadata } from 'next';
import { JobsPage } from './jobs-page';

export const metadata: Metadata = { title: 'Jobs' };

export default function Page() {
  return <JobsPage />;
}
