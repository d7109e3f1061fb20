'use client';
// API keys: create one (its secret is shown once, with a copy button), see scopes and when
// each was last used, revoke. Admins and owners only; others see why.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Button } from '@/components/button';
import { PageHeader } from '@/components/card';
import { ConfirmDialog } from '@/components/confirm-dialog';
import { Notice } from '@/components/empty';
import { QueryState } from '@/components/query-state';
import { useToast } from '@/components/toast';
import { errorMessage } from '../../_lib/errors';
import { useNow } from '../../_lib/time';
import { useTRPC } from '../../_lib/trpc';
import { useCan } from '../../_lib/workspace';
import { ApiKeysTable } from './api-keys-table';
import { CreateKeyDialog } from './create-key-dialog';
import { NewKeyBanner } from './new-key-banner';

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
      {created ? <NewKeyBanner name={created.name} apiKey={created.key} onDone={() => setCreated(null)} /> : null}
      <div className="rounded-lg border border-slate-200 bg-white shadow-xs">
        <QueryState
          query={keys}
          isEmpty={(list) => list.length === 0}
          empty={{
            title: 'No API keys yet',
            text: 'Create a key to call the REST API or use the CLI.',
            action: <Button onClick={() => setCreating(true)}>Create key</Button>,
          }}
        >
          {(list) => <ApiKeysTable keys={list} now={now} onRevoke={setRevoking} />}
        </QueryState>
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
      <ConfirmDialog
        open={revoking !== null}
        onCancel={() => setRevoking(null)}
        title={`Revoke ${revoking?.name ?? 'key'}?`}
        description="Requests with this key are refused from now on. This cannot be undone."
        confirmLabel="Revoke key"
        busy={revoke.isPending}
        onConfirm={() => revoking && revoke.mutate({ id: revoking.id })}
      />
    </>
  );
}
