'use client';
// One run: when it was due and started, how it ended, and every attempt (attempt-card.tsx).
// Cancel while unfinished; replay once finished.
import { isFinishedRunStatus } from '@belfry/core/vocabulary';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { Button } from '@/components/button';
import { Card, PageHeader } from '@/components/card';
import { ErrorState, Notice } from '@/components/empty';
import { Loading } from '@/components/spinner';
import { RUN_STATUS_HELP, RunStatusBadge } from '@/components/status';
import { useToast } from '@/components/toast';
import { errorCode, errorMessage } from '../../../_lib/errors';
import { useNow } from '../../../_lib/time';
import { useTRPC } from '../../../_lib/trpc';
import { useCan } from '../../../_lib/workspace';
import { AttemptCard } from './attempt-card';
import { RunSummary } from './run-summary';

export function RunDetail({ id }: { id: string }) {
  const trpc = useTRPC();
  const router = useRouter();
  const toast = useToast();
  const queryClient = useQueryClient();
  const canWrite = useCan('member');
  const now = useNow(1_000);
  const detail = useQuery({
    ...trpc.runs.get.queryOptions({ id }),
    // Poll while something can still happen to the run.
    refetchInterval: (q) => (q.state.data && isFinishedRunStatus(q.state.data.run.status) ? 10_000 : 2_000),
  });
  const onError = (err: unknown) => toast(errorMessage(err), 'error');
  const cancel = useMutation(
    trpc.runs.cancel.mutationOptions({
      onSuccess: () => {
        toast('Run cancelled');
        void queryClient.invalidateQueries({ queryKey: trpc.runs.get.queryKey({ id }) });
      },
      onError,
    }),
  );
  const replay = useMutation(
    trpc.runs.replay.mutationOptions({
      onSuccess: (run) => {
        toast('Replay started');
        router.push(`/runs/${run.id}`);
      },
      onError,
    }),
  );

  if (detail.isPending) return <Loading />;
  if (detail.isError) {
    return errorCode(detail.error) === 'NOT_FOUND' || errorCode(detail.error) === 'BAD_REQUEST' ? (
      <ErrorState error="There is no such run in this workspace." />
    ) : (
      <ErrorState error={errorMessage(detail.error)} retry={() => void detail.refetch()} />
    );
  }
  const { run, job, attempts, replays, lastError } = detail.data;
  const finished = isFinishedRunStatus(run.status);

  return (
    <>
      <PageHeader
        breadcrumb={
          <>
            <Link href="/jobs" className="hover:text-slate-700">
              Jobs
            </Link>
            {job ? (
              <>
                {' / '}
                {job.deleted ? (
                  <span>{job.name} (deleted)</span>
                ) : (
                  <Link href={`/jobs/${job.id}`} className="hover:text-slate-700">
                    {job.name}
                  </Link>
                )}
              </>
            ) : null}
          </>
        }
        title={
          <span className="flex items-center gap-3">
            Run <RunStatusBadge status={run.status} skipReason={run.skipReason} />
          </span>
        }
        description={<span className="font-mono text-xs text-slate-500">{run.id}</span>}
        actions={
          canWrite ? (
            <>
              {!finished ? (
                <Button busy={cancel.isPending} onClick={() => cancel.mutate({ id })}>
                  Cancel run
                </Button>
              ) : null}
              {finished && job && !job.deleted ? (
                <Button variant="primary" busy={replay.isPending} onClick={() => replay.mutate({ id })}>
                  Replay
                </Button>
              ) : null}
            </>
          ) : null
        }
      />

      {run.status === 'dead' ? (
        <div className="mb-6">
          <Notice tone="error">
            {RUN_STATUS_HELP.dead}. {lastError ? <>Last error: {lastError}</> : null}
          </Notice>
        </div>
      ) : run.status === 'failed' ? (
        <div className="mb-6">
          <Notice tone="warn">
            {RUN_STATUS_HELP.failed}. {lastError ? <>Last error: {lastError}</> : null}
          </Notice>
        </div>
      ) : null}

      <RunSummary run={run} replays={replays} now={now} />

      <h2 className="mt-8 mb-3 text-sm font-semibold text-slate-900">Attempts</h2>
      {attempts.length === 0 ? (
        <Card>
          <p className="text-sm text-slate-500">
            {run.status === 'pending' ? 'Waiting for a worker to pick this run up …' : 'No attempts were made.'}
          </p>
        </Card>
      ) : (
        <ol className="space-y-4">
          {[...attempts].reverse().map((a) => (
            <li key={a.attempt}>
              <AttemptCard attempt={a} container={job?.targetType === 'container'} />
            </li>
          ))}
        </ol>
      )}
    </>
  );
}
