import type { Metadata } from 'next';
import { ClusterPage } from './cluster-page';

export const metadata: Metadata = { title: 'Cluster' };

export default function Page() {
  return <ClusterPage />;
}
