// Next 16's proxy (formerly middleware): puts the security headers (security-headers.ts) on
// every response, sends signed-out visitors of dashboard pages to /signin, and signed-in ones
// away from the sign-in and sign-up pages. The redirects are a convenience, not the security
// boundary: the dashboard layout checks the session on the server and every tRPC call checks
// user and membership against the database.
import { getToken } from 'next-auth/jwt';
import { type NextRequest, NextResponse } from 'next/server';
import { publicUrlIsHttps, securityHeaders } from './security-headers';

const PUBLIC = ['/signin', '/signup', '/invite'];
// API routes answer for themselves (401 JSON, problem+json), and assets are public.
const NOT_A_PAGE = /^\/(?:api\/|_next\/)|^\/favicon\.ico$|\.(?:svg|png|jpg|ico|css|js|txt)$/;

function withHeaders(res: NextResponse, page: boolean): NextResponse {
  // next-auth reads NEXTAUTH_URL itself; importing the env module here would pull the
  // database package into the proxy bundle.
  const headers = securityHeaders({
    https: publicUrlIsHttps(process.env.NEXTAUTH_URL),
    dev: process.env.NODE_ENV === 'development',
    page,
  });
  for (const [name, value] of Object.entries(headers)) res.headers.set(name, value);
  return res;
}

export async function proxy(req: NextRequest): Promise<NextResponse> {
  const { pathname, search } = req.nextUrl;
  if (NOT_A_PAGE.test(pathname)) return withHeaders(NextResponse.next(), false);
  const token = await getToken({ req });
  const isPublic = PUBLIC.some((p) => pathname === p || pathname.startsWith(`${p}/`));
  if (!token && !isPublic) {
    const url = req.nextUrl.clone();
    url.pathname = '/signin';
    url.search = pathname === '/' ? '' : `?callbackUrl=${encodeURIComponent(pathname + search)}`;
    return withHeaders(NextResponse.redirect(url), true);
  }
  if (token && (pathname === '/signin' || pathname === '/signup')) {
    const url = req.nextUrl.clone();
    url.pathname = '/jobs';
    url.search = '';
    return withHeaders(NextResponse.redirect(url), true);
  }
  return withHeaders(NextResponse.next(), true);
}

export const config = {
  // Everything but Next's build output, which is immutable script and style.
  matcher: ['/((?!_next/static|_next/image).*)'],
};
