// Every dashboard page: signed-in users only (checked here on the server, not only in the
// proxy), inside the shell with navigation and the workspace switcher.
import { getServerSession } from 'next-auth';
import { redirect } from 'next/navigation';
import type { ReactNode } from 'react';
import { authOptions } from '@/app/_lib/auth';
import { Shell } from './shell';

export const dynamic = 'force-dynamic';

export default async function DashboardLayout({ children }: { children: ReactNode }) {
  const session = await getServerSession(authOptions);
  if (!session) redirect('/signin');
  return <Shell>{children}</Shell>;
}
