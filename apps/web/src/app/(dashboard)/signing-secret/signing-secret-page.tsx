'use client';
// The webhook signing secret: reveal it, rotate it (the old one keeps signing for 24 h so
// receivers can switch without dropping deliveries), and how to verify a delivery.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Button } from '@/components/button';
import { Card, PageHeader } from '@/components/card';
import { CodeBlock, CopyButton } from '@/components/copy';
import { Dialog } from '@/components/dialog';
import { ErrorState, Notice } from '@/components/empty';
import { Loading } from '@/components/spinner';
import { useToast } from '@/components/toast';
import { errorMessage } from '../../_lib/errors';
import { formatLocal, relative, useNow } from '../../_lib/time';
import { useTRPC } from '../../_lib/trpc';
import { useCan } from '../../_lib/workspace';

const VERIFY_SNIPPET = `// npm install standardwebhooks
import express from 'express';
import { Webhook } from 'standardwebhooks';

const wh = new Webhook(process.env.BELFRY_SIGNING_SECRET); // "whsec_..."
const app = express();

// Verify against the raw body, exactly as it was sent.
app.post('/hooks/daily-report', express.raw({ type: '*/*' }), (req, res) => {
  let payload;
  try {
    payload = wh.verify(req.body, {
      'webhook-id': req.header('webhook-id'),
      'webhook-timestamp': req.header('webhook-timestamp'),
      'webhook-signature': req.header('webhook-signature'),
    });
  } catch {
    return res.sendStatus(401); // not from Belfry, altered, or older than 5 minutes
  }
  // webhook-id is the run id, the same on every retry: skip runs you already handled.
  console.log(req.header('webhook-id'), req.header('belfry-scheduled-time'), payload);
  res.sendStatus(204);
});`;

function Secret({ value, revealed, testId }: { value: string; revealed: boolean; testId?: string }) {
  return (
    <code
      data-testid={testId}
      className="min-w-0 flex-1 truncate rounded bg-slate-50 px-2.5 py-1.5 font-mono text-sm ring-1 ring-slate-200"
    >
      {revealed ? value : `whsec_${'•'.repeat(32)}`}
    </code>
  );
}

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
              <div className="mt-5 border-t border-slate-100 pt-4">
                <div className="mb-1.5 text-sm font-medium text-slate-800">
                  Previous secret{' '}
                  <span className="font-normal text-slate-500">
                    still signing until {formatLocal(secret.data.previousExpiresAt)} (
                    {relative(secret.data.previousExpiresAt, now)})
                  </span>
                </div>
                <div className="flex items-center gap-2">
                  <Secret value={secret.data.previous} revealed={revealed} testId="previous-secret" />
                  <CopyButton text={secret.data.previous} size="md" />
                </div>
                <p className="mt-2 text-xs text-slate-500">
                  Until then each delivery carries two signatures (new and old, space-separated), so receivers verifying
                  with either secret accept it.
                </p>
              </div>
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
      <Dialog
        open={confirm}
        onClose={() => setConfirm(false)}
        title="Rotate the signing secret?"
        description={
          <>
            <p>
              A new secret signs every delivery from now on. For the next 24 hours the old secret signs them too: each
              delivery carries both signatures, so endpoints still verifying with the old secret keep working while you
              update them.
            </p>
            <p className="mt-2">After 24 hours only the new secret signs. Update your receivers before then.</p>
          </>
        }
        footer={
          <>
            <Button onClick={() => setConfirm(false)}>Cancel</Button>
            <Button variant="primary" busy={rotate.isPending} onClick={() => rotate.mutate()}>
              Rotate secret
            </Button>
          </>
        }
      />
    </>
  );
}
