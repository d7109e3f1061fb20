// Next 16's proxy (formerly middleware): sends signed-out visitors of dashboard pages to
// /signin, and signed-in ones away from the sign-in and sign-up pages. This is a
// convenience, not the security boundary: the dashboard layout checks the session on the
// server and every tRPC call checks user and membership against the database.
import { getToken } from 'next-auth/jwt';
import { type NextRequest, NextResponse } from 'next/server';

const PUBLIC = ['/signin', '/signup', '/invite'];

export async function proxy(req: NextRequest): Promise<NextResponse> {
  const { pathname, search } = req.nextUrl;
  // next-auth reads NEXTAUTH_SECRET itself; importing the env module here would pull the
  // database package into the proxy bundle.
  const token = await getToken({ req });
  const isPublic = PUBLIC.some((p) => pathname === p || pathname.startsWith(`${p}/`));
  if (!token && !isPublic) {
    const url = req.nextUrl.clone();
    url.pathname = '/signin';
    url.search = pathname === '/' ? '' : `?callbackUrl=${encodeURIComponent(pathname + search)}`;
    return NextResponse.redirect(url);
  }
  if (token && (pathname === '/signin' || pathname === '/signup')) {
    const url = req.nextUrl.clone();
    url.pathname = '/jobs';
    url.search = '';
    return NextResponse.redirect(url);
  }
  return NextResponse.next();
}

export const config = {
  // Pages only: API routes answer for themselves (401 JSON, problem+json), and assets are public.
  matcher: ['/((?!api/|_next/|favicon.ico|.*\\.(?:svg|png|jpg|ico|css|js|txt)$).*)'],
};
