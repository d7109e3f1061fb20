'use client';
// API keys: create one (its secret is shown once, with a copy button), see scopes and when
// each was last used, revoke. Admins and owners only; others see why.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Badge } from '@/components/badge';
import { Button } from '@/components/button';
import { PageHeader } from '@/components/card';
import { CodeBlock, CopyButton } from '@/components/copy';
import { Dialog } from '@/components/dialog';
import { Empty, ErrorState, Notice } from '@/components/empty';
import { Checkbox, Field, Input, Select } from '@/components/field';
import { Loading } from '@/components/spinner';
import { Table, TBody, Td, Th } from '@/components/table';
import { useToast } from '@/components/toast';
import { errorMessage, errorsAt, fieldErrors } from '../../_lib/errors';
import { formatLocal, relative, useNow } from '../../_lib/time';
import { useTRPC } from '../../_lib/trpc';
import { useCan } from '../../_lib/workspace';

const SCOPES = [
  { value: 'jobs:read', help: 'List and read jobs' },
  { value: 'jobs:write', help: 'Create, change, pause and delete jobs' },
  { value: 'runs:read', help: 'Read runs and the dead-letter queue' },
  { value: 'runs:write', help: 'Trigger, cancel and replay runs' },
  { value: 'admin', help: 'Everything, including the signing secret' },
] as const;
type Scope = (typeof SCOPES)[number]['value'];

export function ApiKeysPage() {
  const isAdmin = useCan('admin');
  if (!isAdmin) {
    return (
      <>
        <PageHeader title="API keys" />
        <Notice tone="info">Only admins and owners of this workspace can see and create API keys.</Notice>
      </>
    );
  }
  return <ApiKeys />;
}

function ApiKeys() {
  const trpc = useTRPC();
  const toast = useToast();
  const queryClient = useQueryClient();
  const now = useNow(10_000);
  const keys = useQuery({ ...trpc.apiKeys.list.queryOptions(), refetchInterval: 10_000 });
  const [creating, setCreating] = useState(false);
  const [revoking, setRevoking] = useState<{ id: string; name: string } | null>(null);
  const [created, setCreated] = useState<{ name: string; key: string } | null>(null);
  const invalidate = () => queryClient.invalidateQueries({ queryKey: trpc.apiKeys.list.queryKey() });
  const revoke = useMutation(
    trpc.apiKeys.revoke.mutationOptions({
      onSuccess: (k) => {
        toast(`Key ${k.name} revoked`);
        setRevoking(null);
        void invalidate();
      },
      onError: (err) => toast(errorMessage(err), 'error'),
    }),
  );

  return (
    <>
      <PageHeader
        title="API keys"
        description="Keys authenticate the REST API and the CLI (Authorization: Bearer …). Each key belongs to this workspace and may do what its scopes allow."
        actions={
          <Button variant="primary" onClick={() => setCreating(true)}>
            Create key
          </Button>
        }
      />
      {created ? (
        <div className="mb-6 rounded-lg border border-emerald-200 bg-emerald-50 p-4">
          <p className="text-sm font-medium text-emerald-900">
            Key “{created.name}” created. Copy it now: this is the only time it is shown.
          </p>
          <div className="mt-2 flex items-center gap-2">
            <code
              data-testid="new-api-key"
              className="min-w-0 flex-1 truncate rounded bg-white px-2.5 py-1.5 font-mono text-sm ring-1 ring-emerald-200"
            >
              {created.key}
            </code>
            <CopyButton text={created.key} size="md" />
            <Button variant="ghost" onClick={() => setCreated(null)}>
              Done
            </Button>
          </div>
          <div className="mt-3">
            <CodeBlock
              label="Try it"
              code={`curl -H "Authorization: Bearer ${created.key}" ${typeof window === 'undefined' ? '' : window.location.origin}/api/v1/jobs`}
            />
          </div>
        </div>
      ) : null}
      <div className="rounded-lg border border-slate-200 bg-white shadow-xs">
        {keys.isPending ? (
          <Loading />
        ) : keys.isError ? (
          <ErrorState error={errorMessage(keys.error)} retry={() => void keys.refetch()} />
        ) : keys.data.length === 0 ? (
          <Empty title="No API keys yet" action={<Button onClick={() => setCreating(true)}>Create key</Button>}>
            Create a key to call the REST API or use the CLI.
          </Empty>
        ) : (
          <Table label="API keys">
            <thead>
              <tr>
                <Th>Name</Th>
                <Th>Key</Th>
                <Th>Scopes</Th>
                <Th>Last used</Th>
                <Th>Created</Th>
                <Th>Expires</Th>
                <Th>Status</Th>
                <Th>
                  <span className="sr-only">Actions</span>
                </Th>
              </tr>
            </thead>
            <TBody>
              {keys.data.map((k) => {
                const expired = k.expiresAt !== null && Date.parse(k.expiresAt) <= now;
                return (
                  <tr key={k.id} className={k.revokedAt ? 'text-slate-400' : ''}>
                    <Td className="font-medium text-slate-900">{k.name}</Td>
                    <Td className="font-mono text-xs">{k.prefix}…</Td>
                    <Td>
                      <div className="flex flex-wrap gap-1">
                        {k.scopes.map((s) => (
                          <Badge key={s} tone={s === 'admin' ? 'indigo' : 'slate'}>
                            {s}
                          </Badge>
                        ))}
                      </div>
                    </Td>
                    <Td className="whitespace-nowrap" title={k.lastUsedAt ? formatLocal(k.lastUsedAt) : undefined}>
                      {k.lastUsedAt ? relative(k.lastUsedAt, now) : <span className="text-slate-400">Never</span>}
                    </Td>
                    <Td className="whitespace-nowrap" title={formatLocal(k.createdAt)}>
                      {relative(k.createdAt, now)}
                    </Td>
                    <Td className="whitespace-nowrap" title={k.expiresAt ? formatLocal(k.expiresAt) : undefined}>
                      {k.expiresAt ? relative(k.expiresAt, now) : <span className="text-slate-400">Never</span>}
                    </Td>
                    <Td>
                      {k.revokedAt ? (
                        <Badge tone="zinc">Revoked</Badge>
                      ) : expired ? (
                        <Badge tone="amber">Expired</Badge>
                      ) : (
                        <Badge tone="green">Active</Badge>
                      )}
                    </Td>
                    <Td className="text-right">
                      {!k.revokedAt ? (
                        <Button
                          size="sm"
                          variant="ghost"
                          className="text-rose-700 hover:bg-rose-50"
                          onClick={() => setRevoking({ id: k.id, name: k.name })}
                        >
                          Revoke
                        </Button>
                      ) : null}
                    </Td>
                  </tr>
                );
              })}
            </TBody>
          </Table>
        )}
      </div>
      <CreateKeyDialog
        open={creating}
        onClose={() => setCreating(false)}
        onCreated={(name, key) => {
          setCreated({ name, key });
          setCreating(false);
          void invalidate();
        }}
      />
      <Dialog
        open={revoking !== null}
        onClose={() => setRevoking(null)}
        title={`Revoke ${revoking?.name ?? 'key'}?`}
        description="Requests with this key are refused from now on. This cannot be undone."
        footer={
          <>
            <Button onClick={() => setRevoking(null)}>Cancel</Button>
            <Button
              variant="danger"
              busy={revoke.isPending}
              onClick={() => revoking && revoke.mutate({ id: revoking.id })}
            >
              Revoke key
            </Button>
          </>
        }
      />
    </>
  );
}

function CreateKeyDialog({
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
  const [scopes, setScopes] = useState<Set<Scope>>(new Set(['jobs:read', 'jobs:write', 'runs:read', 'runs:write']));
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
            scopes: [...scopes],
            ...(expiresInDays
              ? { expiresAt: new Date(Date.now() + Number(expiresInDays) * 86_400_000).toISOString() }
              : {}),
          });
        }}
      >
        {create.error && !errors.length ? <Notice tone="error">{errorMessage(create.error)}</Notice> : null}
        <Field label="Name" hint="What uses it, e.g. “billing service” or “CI”." errors={errorsAt(errors, 'name')}>
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
                  onChange={() =>
                    setScopes((prev) => {
                      const next = new Set(prev);
                      if (next.has(s.value)) next.delete(s.value);
                      else next.add(s.value);
                      return next;
                    })
                  }
                />
              </div>
            ))}
          </div>
          {errorsAt(errors, 'scopes').length ? (
            <p className="mt-1 text-xs text-rose-700">{errorsAt(errors, 'scopes').join('; ')}</p>
          ) : null}
        </fieldset>
        <Field label="Expires" errors={errorsAt(errors, 'expiresAt')}>
          {({ id }) => (
            <Select id={id} value={expiresInDays} onChange={(e) => setExpiresInDays(e.target.value)} className="w-48">
              <option value="">Never</option>
              <option value="30">In 30 days</option>
              <option value="90">In 90 days</option>
              <option value="365">In a year</option>
            </Select>
          )}
        </Field>
        <div className="flex justify-end gap-2 pt-1">
          <Button onClick={onClose}>Cancel</Button>
          <Button type="submit" variant="primary" busy={create.isPending}>
            Create key
          </Button>
        </div>
      </form>
    </Dialog>
  );
}
