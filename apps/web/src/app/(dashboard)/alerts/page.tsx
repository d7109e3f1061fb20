import type { Metadata } from 'next';
import { AlertsPage } from './alerts-page';

export const metadata: Metadata = { title: 'Alerts' };

export default function Page() {
  return <AlertsPage />;
}
