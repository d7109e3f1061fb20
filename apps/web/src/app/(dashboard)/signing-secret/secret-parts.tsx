'use client';
// The pieces of the signing-secret page: the secret (masked until revealed), the previous
// secret while it still signs, the rotation's confirmation, and how to verify a delivery.
import { Button } from '@/components/button';
import { CopyButton } from '@/components/copy';
import { Dialog } from '@/components/dialog';
import { formatLocal, relative } from '../../_lib/time';

export const VERIFY_SNIPPET = `// npm install standardwebhooks
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

export function Secret({ value, revealed, testId }: { value: string; revealed: boolean; testId?: string }) {
  return (
    <code
      data-testid={testId}
      className="min-w-0 flex-1 truncate rounded bg-slate-50 px-2.5 py-1.5 font-mono text-sm ring-1 ring-slate-200"
    >
      {revealed ? value : `whsec_${'•'.repeat(32)}`}
    </code>
  );
}

export function PreviousSecret({
  previous,
  expiresAt,
  revealed,
  now,
  onRevoke,
}: {
  previous: string;
  expiresAt: string;
  revealed: boolean;
  now: number;
  /** asks to end the rotation now */
  onRevoke: () => void;
}) {
  return (
    <div className="mt-5 border-t border-slate-100 pt-4">
      <div className="mb-1.5 text-sm font-medium text-slate-800">
        Previous secret{' '}
        <span className="font-normal text-slate-500">
          still signing until {formatLocal(expiresAt)} ({relative(expiresAt, now)})
        </span>
      </div>
      <div className="flex items-center gap-2">
        <Secret value={previous} revealed={revealed} testId="previous-secret" />
        <CopyButton text={previous} size="md" />
        <Button variant="secondary" onClick={onRevoke}>
          End rotation now …
        </Button>
      </div>
      <p className="mt-2 text-xs text-slate-500">
        Until then each delivery carries two signatures (new and old, space-separated), so receivers verifying with
        either secret accept it.
      </p>
    </div>
  );
}

export function RotateDialog({
  open,
  onClose,
  busy,
  onRotate,
}: {
  open: boolean;
  onClose: () => void;
  busy: boolean;
  onRotate: () => void;
}) {
  return (
    <Dialog
      open={open}
      onClose={onClose}
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
          <Button onClick={onClose}>Cancel</Button>
          <Button variant="primary" busy={busy} onClick={onRotate}>
            Rotate secret
          </Button>
        </>
      }
    />
  );
}

export function RevokePreviousDialog({
  open,
  onClose,
  busy,
  onRevoke,
}: {
  open: boolean;
  onClose: () => void;
  busy: boolean;
  onRevoke: () => void;
}) {
  return (
    <Dialog
      open={open}
      onClose={onClose}
      title="End the rotation now?"
      description={
        <>
          <p>
            The previous secret stops signing deliveries within seconds, instead of when its 24 hours are up. Do this
            when it may have leaked, or when every receiver already verifies with the current secret.
          </p>
          <p className="mt-2">
            Receivers still verifying with the previous secret will reject deliveries from then on.
          </p>
        </>
      }
      footer={
        <>
          <Button onClick={onClose}>Cancel</Button>
          <Button variant="danger" busy={busy} onClick={onRevoke}>
            Revoke previous secret
          </Button>
        </>
      }
    />
  );
}
