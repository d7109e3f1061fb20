// next-auth's endpoints (sign-in, sign-out, session, CSRF) under /api/auth. These are public,
// so a body is read under a small cap first (413 problem+json past it); next-auth itself
// would read any size.
import { AppError, problemResponse, readCapped } from '@belfry/api';
import NextAuth from 'next-auth';
import { NextRequest } from 'next/server';
import { authOptions } from '@/app/_lib/auth';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

/** A sign-in form is an e-mail, a password, a CSRF token and a callback URL. */
const AUTH_MAX_BODY_BYTES = 16 * 1024;

const nextAuth = NextAuth(authOptions);

async function handler(req: NextRequest, context: { params: Promise<{ nextauth: string[] }> }): Promise<Response> {
  if (req.method !== 'POST') return nextAuth(req, context);
  let body: Uint8Array;
  try {
    body = await readCapped(req, AUTH_MAX_BODY_BYTES);
  } catch (err) {
    if (err instanceof AppError) return problemResponse(err);
    throw err;
  }
  const buffered = new NextRequest(req.url, { method: req.method, headers: req.headers, body: new Uint8Array(body) });
  return nextAuth(buffered, context);
}

export { handler as GET, handler as POST };
