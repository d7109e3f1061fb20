'use client';
// Invitations not yet accepted (admins only): who, as what, invited by whom, until when; Revoke.
import { useMutation, useQuery } from '@tanstack/react-query';
import { Badge } from '@/components/badge';
import { Button } from '@/components/button';
import { Card } from '@/components/card';
import { QueryState } from '@/components/query-state';
import { Table, TableHead, TBody, Td } from '@/components/table';
import { useToast } from '@/components/toast';
import { errorMessage } from '../../_lib/errors';
import { relative } from '../../_lib/time';
import { useTRPC } from '../../_lib/trpc';

export function PendingInvitations({ now, onChanged }: { now: number; onChanged: () => void }) {
  const trpc = useTRPC();
  const toast = useToast();
  const invitations = useQuery({ ...trpc.members.invitations.queryOptions(), refetchInterval: 15_000 });
  const revokeInvitation = useMutation(
    trpc.members.revokeInvitation.mutationOptions({
      onSuccess: () => {
        toast('Invitation revoked');
        onChanged();
      },
      onError: (err: unknown) => toast(errorMessage(err), 'error'),
    }),
  );
  return (
    <Card className="mt-6" title="Pending invitations" padded={false}>
      <QueryState
        query={invitations}
        isEmpty={(list) => list.length === 0}
        empty={{ title: 'No pending invitations', text: 'Invite someone with the button above.' }}
      >
        {(pending) => (
          <Table label="Pending invitations">
            <TableHead columns={['Email', 'Role', 'Invited by', 'Expires']} actions />
            <TBody>
              {pending.map((i) => (
                <tr key={i.id}>
                  <Td className="font-medium text-slate-900">{i.email}</Td>
                  <Td>
                    <Badge>{i.role}</Badge>
                  </Td>
                  <Td>{i.invitedBy ?? '—'}</Td>
                  <Td>{i.expired ? <Badge tone="amber">Expired</Badge> : relative(i.expiresAt, now)}</Td>
                  <Td className="text-right">
                    <Button size="sm" variant="ghost" onClick={() => revokeInvitation.mutate({ id: i.id })}>
                      Revoke
                    </Button>
                  </Td>
                </tr>
              ))}
            </TBody>
          </Table>
        )}
      </QueryState>
    </Card>
  );
}
