// What every dashboard request knows: the service dependencies, who the session cookie says
// is signed in, the tenant they last picked, and a way to remember another pick. The web
// app builds it from next-auth's JWT and a cookie; nothing here knows about either. The
// session itself (user, memberships) is loaded lazily, once per HTTP request, however many
// batched calls the request carries.
import type { ServiceDeps } from '../context';
import { type DashboardSession, loadSession } from '../dashboard/session';

export interface DashboardContextOptions {
  deps: ServiceDeps;
  /** the signed-in user's id from the session token, or null when signed out */
  userId: string | null;
  /** the tenant the client last chose; verified against the user's memberships on each call */
  requestedTenantId: string | null;
  /** remembers the active tenant for later requests (the web app sets a cookie) */
  setActiveTenant: (tenantId: string) => void;
  /** the client's address key (security/client-address.ts) for throttling sign-up; unset when unknown */
  clientKey?: string | undefined;
}

export interface DashboardContext extends DashboardContextOptions {
  session(): Promise<DashboardSession | null>;
}

export function createDashboardContext(options: DashboardContextOptions): DashboardContext {
  let loaded: Promise<DashboardSession | null> | undefined;
  return {
    ...options,
    session() {
      loaded ??= options.userId ? loadSession(options.deps, options.userId) : Promise.resolve(null);
      return loaded;
    },
  };
}
