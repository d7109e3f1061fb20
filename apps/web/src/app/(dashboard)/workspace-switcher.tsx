'use client';
// Which workspace (tenant) the dashboard shows: the switcher in the sidebar, creating a new
// workspace, and what someone in no workspace at all sees.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { Button } from '@/components/button';
import { Dialog } from '@/components/dialog';
import { FormActions, TextField } from '@/components/form-fields';
import { errorMessage, errorsAt, fieldErrors } from '../_lib/errors';
import { useTRPC } from '../_lib/trpc';

export function WorkspaceSwitcher({
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
        <TextField
          label="Name"
          errors={
            errorsAt(errors, 'name').length
              ? errorsAt(errors, 'name')
              : create.error
                ? [errorMessage(create.error)]
                : undefined
          }
          value={name}
          onChange={(e) => setName(e.target.value)}
          required
          autoFocus
        />
        <FormActions onCancel={onClose} busy={create.isPending} submitLabel="Create workspace" className="mt-5" />
      </form>
    </Dialog>
  );
}

export function NoWorkspace() {
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
