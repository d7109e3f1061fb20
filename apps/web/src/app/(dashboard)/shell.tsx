'use client';
// The dashboard frame: sidebar navigation, the workspace switcher, the user and sign-out.
// Loads the session (user, workspaces, role) once and hands it to pages via context.
import { useQuery } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { ErrorState } from '@/components/empty';
import { Loading } from '@/components/spinner';
import { errorMessage } from '../_lib/errors';
import { useTRPC } from '../_lib/trpc';
import { type Role, WorkspaceContext } from '../_lib/workspace';
import { Logo, SidebarNav } from './sidebar-nav';
import { NoWorkspace, WorkspaceSwitcher } from './workspace-switcher';

export function Shell({ children }: { children: ReactNode }) {
  const trpc = useTRPC();
  const me = useQuery({ ...trpc.account.me.queryOptions(), staleTime: 30_000 });

  if (me.isPending) return <Loading label="Loading your workspace …" />;
  if (me.isError) return <ErrorState error={errorMessage(me.error)} retry={() => void me.refetch()} />;
  const { user, memberships, active } = me.data;

  return (
    <div className="flex min-h-screen">
      <a
        href="#main"
        className="sr-only focus:not-sr-only focus:absolute focus:top-2 focus:left-2 focus:z-50 focus:rounded focus:bg-white focus:px-3 focus:py-2 focus:shadow"
      >
        Skip to content
      </a>
      <aside className="sticky top-0 flex h-screen w-56 shrink-0 flex-col border-r border-slate-200 bg-white">
        <div className="flex h-14 items-center gap-2 border-b border-slate-200 px-4">
          <Logo />
          <span className="text-base font-semibold tracking-tight">Belfry</span>
        </div>
        <div className="border-b border-slate-200 p-3">
          <WorkspaceSwitcher memberships={memberships} activeId={active?.tenantId ?? null} />
        </div>
        <SidebarNav user={user} role={active?.role ?? null} />
      </aside>
      <main id="main" className="min-w-0 flex-1">
        <div className="mx-auto max-w-7xl px-6 py-8 lg:px-8">
          {active ? (
            <WorkspaceContext.Provider
              value={{ user, tenantId: active.tenantId, tenantName: active.tenantName, role: active.role as Role }}
            >
              {/* Remount on switch so no page shows the previous workspace's data. */}
              <div key={active.tenantId}>{children}</div>
            </WorkspaceContext.Provider>
          ) : (
            <NoWorkspace />
          )}
        </div>
      </main>
    </div>
  );
}
