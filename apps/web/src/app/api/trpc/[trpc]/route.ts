// The dashboard's tRPC endpoint. Builds the request context from next-auth's JWT (the user)
// and the tenant cookie (their pick, verified against memberships by the router), refuses
// cross-site writes, and logs failures once: expected ones at warn, ours at error. Body and
// batch caps live in @belfry/api's handleTrpcRequest.
import {
  CLIENT_ADDRESS_HEADER,
  createDashboardContext,
  handleTrpcRequest,
  publicMessage,
  stampedClientAddress,
} from '@belfry/api';
import { getToken } from 'next-auth/jwt';
import type { NextRequest } from 'next/server';
import { authSecret, secureCookies } from '@/app/_lib/auth';
import { readTenantCookie, tenantCookie } from '@/app/_lib/tenant-cookie';
import { getDeps } from '@/server/deps';
import { log } from '@/server/log';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

function crossSite(req: NextRequest): boolean {
  const origin = req.headers.get('origin');
  if (!origin) return req.headers.get('sec-fetch-site') === 'cross-site';
  const host = req.headers.get('x-forwarded-host') ?? req.headers.get('host');
  try {
    return new URL(origin).host !== host;
  } catch {
    return true;
  }
}

async function handler(req: NextRequest): Promise<Response> {
  if (req.method === 'POST' && crossSite(req)) {
    return Response.json({ error: 'cross-site requests are not accepted' }, { status: 403 });
  }
  const secure = secureCookies() || req.nextUrl.protocol === 'https:';
  return handleTrpcRequest(req, {
    endpoint: '/api/trpc',
    async createContext(resHeaders) {
      const [deps, token] = await Promise.all([getDeps(), getToken({ req, secret: authSecret() })]);
      return createDashboardContext({
        deps,
        userId: typeof token?.sub === 'string' ? token.sub : null,
        requestedTenantId: readTenantCookie(req.headers.get('cookie')),
        setActiveTenant: (tenantId) => resHeaders.append('set-cookie', tenantCookie(tenantId, secure)),
        // The web server's stamp (the TCP peer, or a trusted proxy's word), never a client's header.
        clientKey: stampedClientAddress(req.headers.get(CLIENT_ADDRESS_HEADER)) ?? undefined,
      });
    },
    onError({ error, path }) {
      if (error.code === 'INTERNAL_SERVER_ERROR') {
        log.error({ err: error.cause ?? error, path }, 'dashboard request failed');
      } else {
        log.warn({ path, code: error.code, message: publicMessage(error) }, 'dashboard request refused');
      }
    },
  });
}

export { handler as GET, handler as POST };
