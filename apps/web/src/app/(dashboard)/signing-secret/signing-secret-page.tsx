'use client';
// The webhook signing secret: reveal it, rotate it (the old one keeps signing for 24 h so
// receivers can switch without dropping deliveries), end a rotation early, and how to verify
// a delivery.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Button } from '@/components/button';
import { Card, PageHeader } from '@/components/card';
import { CodeBlock, CopyButton } from '@/components/copy';
import { ErrorState, Notice } from '@/components/empty';
import { Loading } from '@/components/spinner';
import { useToast } from '@/components/toast';
import { errorMessage } from '../../_lib/errors';
import { useNow } from '../../_lib/time';
import { useTRPC } from '../../_lib/trpc';
import { useCan } from '../../_lib/workspace';
import { PreviousSecret, RevokePreviousDialog, RotateDialog, Secret, VERIFY_SNIPPET } from './secret-parts';

export function SigningSecretPage() {
  const isAdmin = useCan('admin');
  if (!isAdmin) {
    return (
      <>
        <PageHeader title="Signing secret" />
        <Notice tone="info">
          Only admins and owners can see the signing secret: with it, anyone could forge deliveries that your endpoints
          would trust.
        </Notice>
        <Card className="mt-6" title="Verifying deliveries">
          <CodeBlock code={VERIFY_SNIPPET} />
        </Card>
      </>
    );
  }
  return <SigningSecret />;
}

function SigningSecret() {
  const trpc = useTRPC();
  const toast = useToast();
  const queryClient = useQueryClient();
  const now = useNow(30_000);
  const [revealed, setRevealed] = useState(false);
  const [confirm, setConfirm] = useState(false);
  const [confirmRevoke, setConfirmRevoke] = useState(false);
  const secret = useQuery({ ...trpc.signingSecret.get.queryOptions(), refetchInterval: 60_000 });
  const rotate = useMutation(
    trpc.signingSecret.rotate.mutationOptions({
      onSuccess: (data) => {
        queryClient.setQueryData(trpc.signingSecret.get.queryKey(), data);
        setConfirm(false);
        setRevealed(true);
        toast('Signing secret rotated');
      },
      onError: (err) => toast(errorMessage(err), 'error'),
    }),
  );
  const revokePrevious = useMutation(
    trpc.signingSecret.revokePrevious.mutationOptions({
      onSuccess: (data) => {
        queryClient.setQueryData(trpc.signingSecret.get.queryKey(), data);
        setConfirmRevoke(false);
        toast('Previous secret revoked: only the current secret signs');
      },
      onError: (err) => toast(errorMessage(err), 'error'),
    }),
  );

  return (
    <>
      <PageHeader
        title="Signing secret"
        description={
          <>
            Every delivery carries a <code className="font-mono">webhook-signature</code> header: an HMAC-SHA256 of the
            run id, the timestamp and the body, made with this secret, per the Standard Webhooks spec. Verify it before
            trusting a request.
          </>
        }
      />
      {secret.isPending ? (
        <Loading />
      ) : secret.isError ? (
        <ErrorState error={errorMessage(secret.error)} retry={() => void secret.refetch()} />
      ) : (
        <div className="space-y-6">
          <Card
            title="Current secret"
            actions={
              <Button variant="secondary" onClick={() => setConfirm(true)}>
                Rotate …
              </Button>
            }
          >
            <div className="flex items-center gap-2">
              <Secret value={secret.data.secret} revealed={revealed} testId="current-secret" />
              <Button onClick={() => setRevealed((r) => !r)} aria-pressed={revealed}>
                {revealed ? 'Hide' : 'Reveal'}
              </Button>
              <CopyButton text={secret.data.secret} size="md" />
            </div>
            {secret.data.previous && secret.data.previousExpiresAt ? (
              <PreviousSecret
                previous={secret.data.previous}
                expiresAt={secret.data.previousExpiresAt}
                revealed={revealed}
                now={now}
                onRevoke={() => setConfirmRevoke(true)}
              />
            ) : null}
          </Card>
          <Card
            title="Verify a delivery (Node.js)"
            description="With the standardwebhooks package; libraries exist for most languages."
          >
            <CodeBlock code={VERIFY_SNIPPET} />
          </Card>
        </div>
      )}
      <RotateDialog
        open={confirm}
        onClose={() => setConfirm(false)}
        busy={rotate.isPending}
        onRotate={() => rotate.mutate()}
      />
      <RevokePreviousDialog
        open={confirmRevoke}
        onClose={() => setConfirmRevoke(false)}
        busy={revokePrevious.isPending}
        onRevoke={() => revokePrevious.mutate()}
      />
    </>
  );
}
