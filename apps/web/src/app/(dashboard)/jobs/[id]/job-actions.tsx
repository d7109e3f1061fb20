'use client';
// What a member can do to a job from its page: run it now, pause or resume it, edit it, and
// delete it (after a confirmation). Each action tells the outcome in a toast.
import type { JobStatus } from '@belfry/client';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { Button, ButtonLink } from '@/components/button';
import { ConfirmDialog } from '@/components/confirm-dialog';
import { useToast } from '@/components/toast';
import { errorMessage } from '../../../_lib/errors';
import { useTRPC } from '../../../_lib/trpc';

export function JobActions({ id, name, status }: { id: string; name: string; status: JobStatus }) {
  const trpc = useTRPC();
  const router = useRouter();
  const toast = useToast();
  const queryClient = useQueryClient();
  const [confirmDelete, setConfirmDelete] = useState(false);

  const done = (message: string, then?: string) => () => {
    toast(message);
    void queryClient.invalidateQueries({ queryKey: trpc.jobs.pathKey() });
    if (then) router.push(then);
  };
  const onError = (err: unknown) => toast(errorMessage(err), 'error');
  const trigger = useMutation(
    trpc.jobs.trigger.mutationOptions({
      onSuccess: (run) => done('Run requested', `/runs/${run.id}`)(),
      onError,
    }),
  );
  const pause = useMutation(trpc.jobs.pause.mutationOptions({ onSuccess: done('Job paused'), onError }));
  const resume = useMutation(trpc.jobs.resume.mutationOptions({ onSuccess: done('Job resumed'), onError }));
  const remove = useMutation(trpc.jobs.delete.mutationOptions({ onSuccess: done('Job deleted', '/jobs'), onError }));

  return (
    <>
      <Button variant="primary" busy={trigger.isPending} onClick={() => trigger.mutate({ id })}>
        Run now
      </Button>
      {status === 'active' ? (
        <Button busy={pause.isPending} onClick={() => pause.mutate({ id })}>
          Pause
        </Button>
      ) : status === 'paused' ? (
        <Button busy={resume.isPending} onClick={() => resume.mutate({ id })}>
          Resume
        </Button>
      ) : null}
      <ButtonLink href={`/jobs/${id}/edit`}>Edit</ButtonLink>
      <Button variant="ghost-danger" onClick={() => setConfirmDelete(true)}>
        Delete
      </Button>
      <ConfirmDialog
        open={confirmDelete}
        onCancel={() => setConfirmDelete(false)}
        title={`Delete ${name}?`}
        description="The job stops running and its pending runs are cancelled. Its run history is kept. This cannot be undone."
        confirmLabel="Delete job"
        busy={remove.isPending}
        onConfirm={() => remove.mutate({ id })}
      />
    </>
  );
}
