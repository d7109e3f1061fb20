'use client';
// The members of the workspace: role (a select where the viewer may change it), when they
// joined, and Remove (or Leave, on one's own row).
import { useMutation, useQuery } from '@tanstack/react-query';
import { Badge } from '@/components/badge';
import { Button } from '@/components/button';
import { QueryState } from '@/components/query-state';
import { Select } from '@/components/field';
import { Table, TableHead, TBody, Td } from '@/components/table';
import { useToast } from '@/components/toast';
import { errorMessage } from '../../_lib/errors';
import { When } from '../../_lib/when';
import { useTRPC } from '../../_lib/trpc';
import { can, type Role, useWorkspace } from '../../_lib/workspace';
import { ROLE_HELP } from './roles';

export interface Removal {
  userId: string;
  email: string;
  activeApiKeys: number;
}

export function MembersTable({
  now,
  onChanged,
  onRemove,
}: {
  now: number;
  onChanged: () => void;
  onRemove: (member: Removal) => void;
}) {
  const trpc = useTRPC();
  const toast = useToast();
  const ws = useWorkspace();
  const isAdmin = can(ws.role, 'admin');
  const members = useQuery({ ...trpc.members.list.queryOptions(), refetchInterval: 15_000 });
  const changeRole = useMutation(
    trpc.members.changeRole.mutationOptions({
      onSuccess: () => {
        toast('Role changed');
        onChanged();
      },
      onError: (err: unknown) => toast(errorMessage(err), 'error'),
    }),
  );
  const roleChoices = (current: Role): Role[] =>
    ws.role === 'owner'
      ? ['owner', 'admin', 'member', 'viewer']
      : current === 'owner'
        ? ['owner']
        : ['admin', 'member', 'viewer'];

  return (
    <QueryState query={members}>
      {(list) => (
        <Table label="Members">
          <TableHead columns={['Member', 'Role', 'Joined']} actions />
          <TBody>
            {list.map((m) => {
              const self = m.userId === ws.user.id;
              const editable = isAdmin && (m.role !== 'owner' || ws.role === 'owner');
              return (
                <tr key={m.userId}>
                  <Td>
                    <div className="font-medium text-slate-900">
                      {m.name || m.email}{' '}
                      {self ? <span className="text-xs font-normal text-slate-500">(you)</span> : null}
                    </div>
                    {m.name ? <div className="text-xs text-slate-500">{m.email}</div> : null}
                  </Td>
                  <Td>
                    {editable ? (
                      <Select
                        aria-label={`Role of ${m.email}`}
                        value={m.role}
                        disabled={changeRole.isPending}
                        onChange={(e) => changeRole.mutate({ userId: m.userId, role: e.target.value as Role })}
                        className="w-32"
                      >
                        {roleChoices(m.role).map((r) => (
                          <option key={r} value={r}>
                            {r}
                          </option>
                        ))}
                      </Select>
                    ) : (
                      <Badge tone={m.role === 'owner' ? 'indigo' : 'slate'} title={ROLE_HELP[m.role]}>
                        {m.role}
                      </Badge>
                    )}
                  </Td>
                  <Td className="whitespace-nowrap">
                    <When at={m.joinedAt} now={now} />
                  </Td>
                  <Td className="text-right">
                    {self || editable ? (
                      <Button
                        size="sm"
                        variant="ghost-danger"
                        onClick={() => onRemove({ userId: m.userId, email: m.email, activeApiKeys: m.activeApiKeys })}
                      >
                        {self ? 'Leave' : 'Remove'}
                      </Button>
                    ) : null}
                  </Td>
                </tr>
              );
            })}
          </TBody>
        </Table>
      )}
    </QueryState>
  );
}
