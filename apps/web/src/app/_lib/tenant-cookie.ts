// The active tenant is remembered in a cookie. It is only a preference: every dashboard
// request checks it against the user's memberships (packages/api/src/trpc/init.ts).
export const TENANT_COOKIE = 'belfry-tenant';
const ONE_YEAR_SECONDS = 365 * 24 * 60 * 60;

export function readTenantCookie(cookieHeader: string | null): string | null {
  if (!cookieHeader) return null;
  for (const part of cookieHeader.split(';')) {
    const [name, ...rest] = part.trim().split('=');
    if (name === TENANT_COOKIE) {
      const value = decodeURIComponent(rest.join('='));
      return /^[A-Za-z0-9_]{1,100}$/.test(value) ? value : null;
    }
  }
  return null;
}

export function tenantCookie(tenantId: string, secure: boolean): string {
  return `${TENANT_COOKIE}=${encodeURIComponent(tenantId)}; Path=/; Max-Age=${ONE_YEAR_SECONDS}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
}
