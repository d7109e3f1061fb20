// next-auth's endpoints (sign-in, sign-out, session, CSRF) under /api/auth.
import NextAuth from 'next-auth';
import { authOptions } from '@/app/_lib/auth';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

const handler = NextAuth(authOptions);

export { handler as GET, handler as POST };
