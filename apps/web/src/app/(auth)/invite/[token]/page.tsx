import type { Metadata } from 'next';
import { getServerSession } from 'next-auth';
import { authOptions } from '@/app/_lib/auth';
import { AcceptInvitation } from './accept-invitation';

export const metadata: Metadata = { title: 'Invitation' };
export const dynamic = 'force-dynamic';

export default async function InvitePage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  const session = await getServerSession(authOptions);
  return <AcceptInvitation token={token} signedInAs={session?.user?.email ?? null} />;
}
