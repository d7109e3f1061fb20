'use client';
// Members of the workspace and their roles; invitations (a link to pass on, shown once);
// changing roles and removing members, or leaving. Roles: viewer reads; member also
// manages jobs and runs; admin also keys, the signing secret and members; owner everything.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Button } from '@/components/button';
import { Card, PageHeader } from '@/components/card';
import { ConfirmDialog } from '@/components/confirm-dialog';
import { useToast } from '@/components/toast';
import { errorMessage } from '../../_lib/errors';
import { useNow } from '../../_lib/time';
import { useTRPC } from '../../_lib/trpc';
import { can, type Role, useWorkspace } from '../../_lib/workspace';
import { InviteDialog } from './invite-dialog';
import { MembersTable, type Removal } from './members-table';
import { PendingInvitations } from './pending-invitations';
import { removalConsequences, ROLE_HELP } from './roles';

export function MembersPage() {
  const trpc = useTRPC();
  const toast = useToast();
  const queryClient = useQueryClient();
  const ws = useWorkspace();
  const isAdmin = can(ws.role, 'admin');
  const now = useNow(30_000);
  const [inviting, setInviting] = useState(false);
  const [removing, setRemoving] = useState<Removal | null>(null);
  const invalidate = () => queryClient.invalidateQueries({ queryKey: trpc.members.pathKey() });
  const onError = (err: unknown) => toast(errorMessage(err), 'error');
  const remove = useMutation(
    trpc.members.remove.mutationOptions({
      onSuccess: ({ userId, revokedApiKeys }) => {
        setRemoving(null);
        if (userId === ws.user.id) {
          window.location.assign('/jobs');
          return;
        }
        toast(
          revokedApiKeys > 0
            ? `Member removed; ${revokedApiKeys} API ${revokedApiKeys === 1 ? 'key' : 'keys'} revoked`
            : 'Member removed',
        );
        void invalidate();
      },
      onError,
    }),
  );

  return (
    <>
      <PageHeader
        title="Members"
        description={`People with access to ${ws.tenantName}.`}
        actions={
          isAdmin ? (
            <Button variant="primary" onClick={() => setInviting(true)}>
              Invite
            </Button>
          ) : null
        }
      />
      <Card padded={false}>
        <MembersTable now={now} onChanged={() => void invalidate()} onRemove={setRemoving} />
      </Card>

      {isAdmin ? <PendingInvitations now={now} onChanged={() => void invalidate()} /> : null}

      <Card className="mt-6" title="Roles">
        <ul className="grid gap-2 text-sm sm:grid-cols-2">
          {(Object.keys(ROLE_HELP) as Role[]).map((r) => (
            <li key={r}>
              <span className="font-medium capitalize text-slate-900">{r}</span>{' '}
              <span className="text-slate-600">— {ROLE_HELP[r]}</span>
            </li>
          ))}
        </ul>
      </Card>

      <InviteDialog open={inviting} onClose={() => setInviting(false)} onInvited={() => void invalidate()} />
      <ConfirmDialog
        open={removing !== null}
        onCancel={() => setRemoving(null)}
        title={removing?.userId === ws.user.id ? `Leave ${ws.tenantName}?` : `Remove ${removing?.email}?`}
        description={removalConsequences(removing, removing?.userId === ws.user.id)}
        confirmLabel={removing?.userId === ws.user.id ? 'Leave' : 'Remove'}
        busy={remove.isPending}
        onConfirm={() => removing && remove.mutate({ userId: removing.userId })}
      />
    </>
  );
}
