'use client';
// The two confirmations of the dead letter: replaying every run that matches the filters
// (after a dry-run count), and discarding the selected runs.
import { useQuery } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { Button } from '@/components/button';
import { Dialog } from '@/components/dialog';
import { Spinner } from '@/components/spinner';
import { errorMessage } from '../../_lib/errors';
import { useTRPC } from '../../_lib/trpc';
import { plural } from '../../_lib/use-toggle-set';

export interface DeadLetterFilter {
  jobId?: string;
  since?: string;
}

export function ReplayAllDialog({
  open,
  onClose,
  filter,
  scope,
  busy,
  onReplay,
}: {
  open: boolean;
  onClose: () => void;
  filter: DeadLetterFilter;
  /** which runs, in words: "of <job> that died in the last hour" */
  scope: ReactNode;
  busy: boolean;
  onReplay: () => void;
}) {
  const trpc = useTRPC();
  const count = useQuery({
    ...trpc.deadLetter.count.queryOptions(filter),
    enabled: open,
    refetchInterval: open ? 3_000 : false,
  });
  return (
    <Dialog
      open={open}
      onClose={onClose}
      title="Replay all matching dead runs?"
      description={<>Every dead run {scope} runs again now, as a new run linked to the original.</>}
      footer={
        <>
          <Button onClick={onClose}>Cancel</Button>
          <Button variant="primary" disabled={!count.data?.count} busy={busy} onClick={onReplay}>
            {count.data ? `Replay ${plural(count.data.count, 'run')}` : 'Replay'}
          </Button>
        </>
      }
    >
      <p className="text-sm text-slate-700" aria-live="polite">
        {count.isPending ? (
          <Spinner label="Counting …" />
        ) : count.isError ? (
          errorMessage(count.error)
        ) : (
          <>
            Dry run: <strong className="tabular-nums">{count.data.count}</strong> run
            {count.data.count === 1 ? '' : 's'} would be replayed.
          </>
        )}
      </p>
    </Dialog>
  );
}

export function DiscardDialog({
  open,
  onClose,
  count,
  busy,
  onDiscard,
}: {
  open: boolean;
  onClose: () => void;
  count: number;
  busy: boolean;
  onDiscard: () => void;
}) {
  return (
    <Dialog
      open={open}
      onClose={onClose}
      title={`Discard ${count} dead run${count === 1 ? '' : 's'}?`}
      description="They leave the dead-letter queue marked cancelled and will not run again. Their history stays."
      footer={
        <>
          <Button onClick={onClose}>Cancel</Button>
          <Button variant="danger" busy={busy} onClick={onDiscard}>
            Discard
          </Button>
        </>
      }
    />
  );
}
