import type { Metadata } from 'next';
import { LimitsPage } from './limits-page';

export const metadata: Metadata = { title: 'Limits' };

export default function Page() {
  return <LimitsPage />;
}
