'use client';
// Invites someone: Belfry sends no email, so the dialog shows a link to pass on, once.
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { Button } from '@/components/button';
import { CopyButton } from '@/components/copy';
import { Dialog } from '@/components/dialog';
import { Notice } from '@/components/empty';
import { Field, Input, Select } from '@/components/field';
import { errorMessage, errorsAt, fieldErrors } from '../../_lib/errors';
import { useTRPC } from '../../_lib/trpc';
import { ROLE_HELP } from './roles';

export function InviteDialog({
  open,
  onClose,
  onInvited,
}: {
  open: boolean;
  onClose: () => void;
  onInvited: () => void;
}) {
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
