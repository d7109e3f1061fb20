'use client';
// Members of the workspace and their roles; invitations (a link to pass on, shown once);
// changing roles and removing members, or leaving. Roles: viewer reads; member also
// manages jobs and runs; admin also keys, the signing secret and members; owner everything.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Badge } from '@/components/badge';
import { Button } from '@/components/button';
import { Card, PageHeader } from '@/components/card';
import { CopyButton } from '@/components/copy';
import { Dialog } from '@/components/dialog';
import { ErrorState, Notice } from '@/components/empty';
import { Field, Input, Select } from '@/components/field';
import { Loading } from '@/components/spinner';
import { Table, TBody, Td, Th } from '@/components/table';
import { useToast } from '@/components/toast';
import { errorMessage, errorsAt, fieldErrors } from '../../_lib/errors';
import { formatLocal, relative, useNow } from '../../_lib/time';
import { useTRPC } from '../../_lib/trpc';
import { can, type Role, useWorkspace } from '../../_lib/workspace';

const ROLE_HELP: Record<Role, string> = {
  viewer: 'Sees jobs, runs and the cluster',
  member: 'Also creates and changes jobs, triggers, cancels and replays runs',
  admin: 'Also manages API keys, the signing secret and members',
  owner: 'Everything, including making others owners',
};

export function MembersPage() {
  const trpc = useTRPC();
  const toast = useToast();
  const queryClient = useQueryClient();
  const ws = useWorkspace();
  const isAdmin = can(ws.role, 'admin');
  const now = useNow(30_000);
  const members = useQuery({ ...trpc.members.list.queryOptions(), refetchInterval: 15_000 });
  const invitations = useQuery({
    ...trpc.members.invitations.queryOptions(),
    enabled: isAdmin,
    refetchInterval: 15_000,
  });
  const [inviting, setInviting] = useState(false);
  const [removing, setRemoving] = useState<{ userId: string; email: string; activeApiKeys: number } | null>(null);
  const invalidate = () => queryClient.invalidateQueries({ queryKey: trpc.members.pathKey() });
  const onError = (err: unknown) => toast(errorMessage(err), 'error');
  const changeRole = useMutation(
    trpc.members.changeRole.mutationOptions({
      onSuccess: () => {
        toast('Role changed');
        void invalidate();
      },
      onError,
    }),
  );
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
  const revokeInvitation = useMutation(
    trpc.members.revokeInvitation.mutationOptions({
      onSuccess: () => {
        toast('Invitation revoked');
        void invalidate();
      },
      onError,
    }),
  );

  const roleChoices = (current: Role): Role[] =>
    ws.role === 'owner'
      ? ['owner', 'admin', 'member', 'viewer']
      : current === 'owner'
        ? ['owner']
        : ['admin', 'member', 'viewer'];

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
        {members.isPending ? (
          <Loading />
        ) : members.isError ? (
          <ErrorState error={errorMessage(members.error)} retry={() => void members.refetch()} />
        ) : (
          <Table label="Members">
            <thead>
              <tr>
                <Th>Member</Th>
                <Th>Role</Th>
                <Th>Joined</Th>
                <Th>
                  <span className="sr-only">Actions</span>
                </Th>
              </tr>
            </thead>
            <TBody>
              {members.data.map((m) => {
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
                    <Td className="whitespace-nowrap" title={formatLocal(m.joinedAt)}>
                      {relative(m.joinedAt, now)}
                    </Td>
                    <Td className="text-right">
                      {self || editable ? (
                        <Button
                          size="sm"
                          variant="ghost"
                          className="text-rose-700 hover:bg-rose-50"
                          onClick={() =>
                            setRemoving({ userId: m.userId, email: m.email, activeApiKeys: m.activeApiKeys })
                          }
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
      </Card>

      {isAdmin ? (
        <Card className="mt-6" title="Pending invitations" padded={false}>
          {invitations.isPending ? (
            <Loading />
          ) : invitations.isError ? (
            <ErrorState error={errorMessage(invitations.error)} />
          ) : invitations.data.length === 0 ? (
            <p className="px-5 py-4 text-sm text-slate-500">No pending invitations.</p>
          ) : (
            <Table label="Pending invitations">
              <thead>
                <tr>
                  <Th>Email</Th>
                  <Th>Role</Th>
                  <Th>Invited by</Th>
                  <Th>Expires</Th>
                  <Th>
                    <span className="sr-only">Actions</span>
                  </Th>
                </tr>
              </thead>
              <TBody>
                {invitations.data.map((i) => (
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
        </Card>
      ) : null}

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
      <Dialog
        open={removing !== null}
        onClose={() => setRemoving(null)}
        title={removing?.userId === ws.user.id ? `Leave ${ws.tenantName}?` : `Remove ${removing?.email}?`}
        description={removalConsequences(removing, removing?.userId === ws.user.id)}
        footer={
          <>
            <Button onClick={() => setRemoving(null)}>Cancel</Button>
            <Button
              variant="danger"
              busy={remove.isPending}
              onClick={() => removing && remove.mutate({ userId: removing.userId })}
            >
              {removing?.userId === ws.user.id ? 'Leave' : 'Remove'}
            </Button>
          </>
        }
      />
    </>
  );
}

function InviteDialog({ open, onClose, onInvited }: { open: boolean; onClose: () => void; onInvited: () => void }) {
  const trpc = useTRPC();
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<'admin' | 'member' | 'viewer'>('member');
  const invite = useMutation(trpc.members.invite.mutationOptions({ onSuccess: onInvited }));
  const errors = fieldErrors(invite.error);
  const link = invite.data ? `${window.location.origin}/invite/${invite.data.token}` : null;
  const close = () => {
    invite.reset();
    setEmail('');
    onClose();
  };
  return (
    <Dialog
      open={open}
      onClose={close}
      title="Invite someone"
      description="Belfry does not send email: you get a link to pass on. It works once, for 7 days, for this address."
    >
      {link ? (
        <div className="space-y-3">
          <Notice tone="success">
            Invitation created for {invite.data?.invitation.email}. Copy the link now; it is shown only once.
          </Notice>
          <div className="flex items-center gap-2">
            <code className="min-w-0 flex-1 truncate rounded bg-slate-50 px-2.5 py-1.5 font-mono text-xs ring-1 ring-slate-200">
              {link}
            </code>
            <CopyButton text={link} size="md" />
          </div>
          <div className="flex justify-end">
            <Button variant="primary" onClick={close}>
              Done
            </Button>
          </div>
        </div>
      ) : (
        <form
          className="space-y-4"
          onSubmit={(e) => {
            e.preventDefault();
            invite.mutate({ email, role });
          }}
        >
          {invite.error && !errors.length ? <Notice tone="error">{errorMessage(invite.error)}</Notice> : null}
          <Field label="Email" errors={errorsAt(errors, 'email')}>
            {({ id, describedBy, invalid }) => (
              <Input
                id={id}
                type="email"
                aria-describedby={describedBy}
                aria-invalid={invalid}
                value={email}
                onChange={(e) => setEmail(e.target.value)}
                required
                autoFocus
              />
            )}
          </Field>
          <Field label="Role" hint={ROLE_HELP[role]}>
            {({ id, describedBy }) => (
              <Select
                id={id}
                aria-describedby={describedBy}
                value={role}
                onChange={(e) => setRole(e.target.value as typeof role)}
              >
                <option value="viewer">viewer</option>
                <option value="member">member</option>
                <option value="admin">admin</option>
              </Select>
            )}
          </Field>
          <div className="flex justify-end gap-2">
            <Button onClick={close}>Cancel</Button>
            <Button type="submit" variant="primary" busy={invite.isPending}>
              Create invitation
            </Button>
          </div>
        </form>
      )}
    </Dialog>
  );
}

/** What removing (or leaving) does, said before it is done: access ends and keys are revoked. */
function removalConsequences(removing: { activeApiKeys: number } | null, self: boolean): string {
  const n = removing?.activeApiKeys ?? 0;
  const keys = n === 1 ? 'the 1 API key' : `the ${n} API keys`;
  if (self) {
    const access = 'You lose access to this workspace until someone invites you again.';
    return n > 0 ? `${access} ${keys[0]?.toUpperCase()}${keys.slice(1)} you created will be revoked.` : access;
  }
  const access = 'They lose access to this workspace at once.';
  return n > 0
    ? `${access} ${keys[0]?.toUpperCase()}${keys.slice(1)} they created will be revoked too; anything using ${n === 1 ? 'it' : 'them'} stops working.`
    : `${access} They created no API keys that still work.`;
}
