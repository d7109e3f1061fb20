'use client';
// The dashboard frame: sidebar navigation, the workspace switcher, the user and sign-out.
// Loads the session (user, workspaces, role) once and hands it to pages via context.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import Link from 'next/link';
import { usePathname, useRouter } from 'next/navigation';
import { signOut } from 'next-auth/react';
import { type ReactNode, useState } from 'react';
import { Button } from '@/components/button';
import { Dialog } from '@/components/dialog';
import { ErrorState } from '@/components/empty';
import { Field, Input } from '@/components/field';
import { Loading } from '@/components/spinner';
import { errorMessage, errorsAt, fieldErrors } from '../_lib/errors';
import { useTRPC } from '../_lib/trpc';
import { type Role, WorkspaceContext } from '../_lib/workspace';
import { Icon, type IconName } from './icons';

const NAV: Array<{ href: string; label: string; icon: IconName; section?: string }> = [
  { href: '/jobs', label: 'Jobs', icon: 'jobs' },
  { href: '/dead-letter', label: 'Dead letter', icon: 'dead' },
  { href: '/cluster', label: 'Cluster', icon: 'cluster' },
  { href: '/api-keys', label: 'API keys', icon: 'key', section: 'Settings' },
  { href: '/signing-secret', label: 'Signing secret', icon: 'secret' },
  { href: '/members', label: 'Members', icon: 'members' },
];

export function Shell({ children }: { children: ReactNode }) {
  const trpc = useTRPC();
  const me = useQuery({ ...trpc.account.me.queryOptions(), staleTime: 30_000 });
  const pathname = usePathname();

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
        <nav aria-label="Main" className="flex-1 overflow-y-auto p-2">
          <ul className="space-y-0.5">
            {NAV.map((item) => {
              const current =
                pathname === item.href ||
                pathname.startsWith(`${item.href}/`) ||
                (item.href === '/jobs' && pathname.startsWith('/runs/'));
              return (
                <li key={item.href}>
                  {item.section ? (
                    <div className="mt-4 mb-1 px-2 text-xs font-semibold tracking-wide text-slate-400 uppercase">
                      {item.section}
                    </div>
                  ) : null}
                  <Link
                    href={item.href}
                    aria-current={current ? 'page' : undefined}
                    className={`flex items-center gap-2.5 rounded-md px-2 py-1.5 text-sm font-medium focus-visible:outline-2 focus-visible:outline-indigo-600 ${
                      current ? 'bg-indigo-50 text-indigo-700' : 'text-slate-700 hover:bg-slate-100'
                    }`}
                  >
                    <Icon name={item.icon} className={current ? 'text-indigo-600' : 'text-slate-400'} />
                    {item.label}
                  </Link>
                </li>
              );
            })}
          </ul>
        </nav>
        <div className="border-t border-slate-200 p-3">
          <div className="truncate text-sm font-medium text-slate-800" title={user.email}>
            {user.name || user.email}
          </div>
          {user.name ? <div className="truncate text-xs text-slate-500">{user.email}</div> : null}
          {active ? <div className="mt-0.5 text-xs text-slate-500 capitalize">{active.role}</div> : null}
          <Button
            size="sm"
            variant="ghost"
            className="-ml-2.5 mt-2"
            onClick={() => void signOut({ callbackUrl: '/signin' })}
          >
            Sign out
          </Button>
        </div>
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

function Logo() {
  return (
    <svg
      viewBox="0 0 24 24"
      className="h-6 w-6 text-indigo-600"
      fill="none"
      stroke="currentColor"
      strokeWidth="1.8"
      aria-hidden="true"
    >
      <path d="M12 3a6 6 0 0 0-6 6v4l-2 3h16l-2-3V9a6 6 0 0 0-6-6z" strokeLinejoin="round" />
      <path d="M10 19a2 2 0 0 0 4 0" strokeLinecap="round" />
    </svg>
  );
}

function WorkspaceSwitcher({
  memberships,
  activeId,
}: {
  memberships: Array<{ tenantId: string; tenantName: string; role: string }>;
  activeId: string | null;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const router = useRouter();
  const [creating, setCreating] = useState(false);
  const switchTenant = useMutation(
    trpc.account.switchTenant.mutationOptions({
      onSuccess: async () => {
        // Everything cached belongs to the previous workspace.
        queryClient.clear();
        router.push('/jobs');
      },
    }),
  );
  return (
    <>
      <label htmlFor="workspace" className="mb-1 block text-xs font-medium text-slate-500">
        Workspace
      </label>
      <select
        id="workspace"
        value={activeId ?? ''}
        disabled={switchTenant.isPending}
        onChange={(e) => {
          if (e.target.value === '__new') setCreating(true);
          else switchTenant.mutate({ tenantId: e.target.value });
        }}
        className="block w-full truncate rounded-md border-0 bg-slate-50 py-1.5 pr-8 pl-2 text-sm font-medium text-slate-900 ring-1 ring-slate-200 ring-inset focus:ring-2 focus:ring-indigo-600 focus:outline-none"
      >
        {memberships.map((m) => (
          <option key={m.tenantId} value={m.tenantId}>
            {m.tenantName}
          </option>
        ))}
        <option value="__new">+ New workspace …</option>
      </select>
      <CreateWorkspaceDialog open={creating} onClose={() => setCreating(false)} />
    </>
  );
}

function CreateWorkspaceDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const router = useRouter();
  const [name, setName] = useState('');
  const create = useMutation(
    trpc.account.createWorkspace.mutationOptions({
      onSuccess: () => {
        queryClient.clear();
        onClose();
        router.push('/jobs');
      },
    }),
  );
  const errors = fieldErrors(create.error);
  return (
    <Dialog
      open={open}
      onClose={onClose}
      title="New workspace"
      description="A workspace (tenant) has its own jobs, API keys, signing secret and members. You will be its owner."
    >
      <form
        onSubmit={(e) => {
          e.preventDefault();
          create.mutate({ name });
        }}
      >
        <Field
          label="Name"
          errors={
            errorsAt(errors, 'name').length
              ? errorsAt(errors, 'name')
              : create.error
                ? [errorMessage(create.error)]
                : undefined
          }
        >
          {({ id, describedBy, invalid }) => (
            <Input
              id={id}
              aria-describedby={describedBy}
              aria-invalid={invalid}
              value={name}
              onChange={(e) => setName(e.target.value)}
              required
              autoFocus
            />
          )}
        </Field>
        <div className="mt-5 flex justify-end gap-2">
          <Button onClick={onClose}>Cancel</Button>
          <Button type="submit" variant="primary" busy={create.isPending}>
            Create workspace
          </Button>
        </div>
      </form>
    </Dialog>
  );
}

function NoWorkspace() {
  const [open, setOpen] = useState(false);
  return (
    <div className="mx-auto max-w-lg rounded-lg border border-slate-200 bg-white p-8 text-center">
      <h1 className="text-lg font-semibold">You are not in a workspace</h1>
      <p className="mt-2 text-sm text-slate-600">
        You were removed from your last workspace, or have not joined one. Create your own, or open an invitation link
        someone sent you.
      </p>
      <Button variant="primary" className="mt-5" onClick={() => setOpen(true)}>
        Create a workspace
      </Button>
      <CreateWorkspaceDialog open={open} onClose={() => setOpen(false)} />
    </div>
  );
}
