// Next 16's proxy (formerly middleware): puts the security headers (security-headers.ts) on
// every page, sends signed-out visitors of dashboard pages to /signin, and signed-in ones
// away from the sign-in and sign-up pages. API routes are not matched: Next buffers the body of
// every request a proxy sees (up to 10 MB), which would undo the API's own streaming body caps;
// their headers come from next.config.ts. The redirects are a convenience, not the security
// boundary: the dashboard layout checks the session on the server and every tRPC call checks
// user and membership against the database.
import { getToken } from 'next-auth/jwt';
import { type NextRequest, NextResponse } from 'next/server';
import { publicUrlIsHttps, securityHeaders } from './security-headers';

const PUBLIC = ['/signin', '/signup', '/invite'];

function withHeaders(res: NextResponse): NextResponse {
  // next-auth reads NEXTAUTH_URL itself; importing the env module here would pull the
  // database package into the proxy bundle.
  const headers = securityHeaders({
    // biome-ignore lint/style/noProcessEnv: the proxy bundle cannot take the env module (above)
    https: publicUrlIsHttps(process.env.NEXTAUTH_URL),
    // biome-ignore lint/style/noProcessEnv: as above
    dev: process.env.NODE_ENV === 'development',
    page: true,
  });
  for (const [name, value] of Object.entries(headers)) res.headers.set(name, value);
  return res;
}

export async function proxy(req: NextRequest): Promise<NextResponse> {
  const { pathname, search } = req.nextUrl;
  const token = await getToken({ req });
  const isPublic = PUBLIC.some((p) => pathname === p || pathname.startsWith(`${p}/`));
  if (!token && !isPublic) {
    const url = req.nextUrl.clone();
    url.pathname = '/signin';
    url.search = pathname === '/' ? '' : `?callbackUrl=${encodeURIComponent(pathname + search)}`;
    return withHeaders(NextResponse.redirect(url));
  }
  if (token && (pathname === '/signin' || pathname === '/signup')) {
    const url = req.nextUrl.clone();
    url.pathname = '/jobs';
    url.search = '';
    return withHeaders(NextResponse.redirect(url));
  }
  return withHeaders(NextResponse.next());
}

export const config = {
  // Pages only: API routes answer for themselves (401 JSON, problem+json), and assets are public.
  matcher: ['/((?!api/|_next/|favicon.ico|.*\\.(?:svg|png|jpg|ico|css|js|txt)$).*)'],
};
