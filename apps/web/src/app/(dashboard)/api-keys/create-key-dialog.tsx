'use client';
// Creating an API key: a name, the scopes it may use, and when it expires. The key itself is
// answered once, to the page that shows it.
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { Dialog } from '@/components/dialog';
import { Notice } from '@/components/empty';
import { Checkbox } from '@/components/field';
import { FormActions, SelectField, TextField } from '@/components/form-fields';
import { errorMessage, errorsAt, fieldErrors } from '../../_lib/errors';
import { useTRPC } from '../../_lib/trpc';
import { useToggleSet } from '../../_lib/use-toggle-set';

const SCOPES = [
  { value: 'jobs:read', help: 'List and read jobs' },
  { value: 'jobs:write', help: 'Create, change, pause and delete jobs' },
  { value: 'runs:read', help: 'Read runs and the dead-letter queue' },
  { value: 'runs:write', help: 'Trigger, cancel and replay runs' },
  { value: 'queues:consume', help: 'Claim and complete pull-queue runs (a worker’s key), nothing else' },
  { value: 'admin', help: 'Everything, including the signing secret' },
] as const;
type Scope = (typeof SCOPES)[number]['value'];

export function CreateKeyDialog({
  open,
  onClose,
  onCreated,
}: {
  open: boolean;
  onClose: () => void;
  onCreated: (name: string, key: string) => void;
}) {
  const trpc = useTRPC();
  const [name, setName] = useState('');
  const scopes = useToggleSet<Scope>(['jobs:read', 'jobs:write', 'runs:read', 'runs:write']);
  const [expiresInDays, setExpiresInDays] = useState('');
  const create = useMutation(
    trpc.apiKeys.create.mutationOptions({
      onSuccess: (res) => {
        onCreated(res.apiKey.name, res.key);
        setName('');
      },
    }),
  );
  const errors = fieldErrors(create.error);
  return (
    <Dialog
      open={open}
      onClose={onClose}
      title="Create an API key"
      description="The key is shown once, right after it is created."
    >
      <form
        className="space-y-4"
        onSubmit={(e) => {
          e.preventDefault();
          create.mutate({
            name,
            scopes: scopes.values(),
            ...(expiresInDays
              ? { expiresAt: new Date(Date.now() + Number(expiresInDays) * 86_400_000).toISOString() }
              : {}),
          });
        }}
      >
        {create.error && !errors.length ? <Notice tone="error">{errorMessage(create.error)}</Notice> : null}
        <TextField
          label="Name"
          hint="What uses it, e.g. “billing service” or “CI”."
          errors={errorsAt(errors, 'name')}
          value={name}
          onChange={(e) => setName(e.target.value)}
          required
          autoFocus
        />
        <fieldset>
          <legend className="mb-1.5 text-sm font-medium text-slate-800">Scopes</legend>
          <div className="space-y-1.5">
            {SCOPES.map((s) => (
              <div key={s.value}>
                <Checkbox
                  label={
                    <span>
                      <code className="font-mono">{s.value}</code> <span className="text-slate-500">— {s.help}</span>
                    </span>
                  }
                  checked={scopes.has(s.value)}
                  onChange={() => scopes.toggle(s.value)}
                />
              </div>
            ))}
          </div>
          {errorsAt(errors, 'scopes').length ? (
            <p className="mt-1 text-xs text-rose-700">{errorsAt(errors, 'scopes').join('; ')}</p>
          ) : null}
        </fieldset>
        <SelectField
          label="Expires"
          errors={errorsAt(errors, 'expiresAt')}
          value={expiresInDays}
          onChange={(e) => setExpiresInDays(e.target.value)}
          className="w-48"
        >
          <option value="">Never</option>
          <option value="30">In 30 days</option>
          <option value="90">In 90 days</option>
          <option value="365">In a year</option>
        </SelectField>
        <FormActions onCancel={onClose} busy={create.isPending} submitLabel="Create key" />
      </form>
    </Dialog>
  );
}
