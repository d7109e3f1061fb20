'use client';
// One run: when it was due and started, how it ended, and every attempt with its worker,
// timings, HTTP status, error, the request headers sent (redacted by the engine) and the
// start of the response. Cancel while unfinished; replay once finished.
import { type AttemptStatus, isFinishedRunStatus } from '@belfry/core/vocabulary';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { Badge } from '@/components/badge';
import { Button } from '@/components/button';
import { Card, DefinitionList, PageHeader } from '@/components/card';
import { ErrorState, Notice } from '@/components/empty';
import { Loading } from '@/components/spinner';
import { RUN_STATUS_HELP, RunStatusBadge } from '@/components/status';
import { useToast } from '@/components/toast';
import { errorCode, errorMessage } from '../../../_lib/errors';
import { durationBetween, formatLocal, formatMs, relative, useNow } from '../../../_lib/time';
import { useTRPC } from '../../../_lib/trpc';
import { useCan } from '../../../_lib/workspace';

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

      <div className="grid gap-6 lg:grid-cols-2">
        <Card title="Timing">
          <DefinitionList
            items={[
              [
                'Scheduled',
                <span key="s" className="tabular-nums">
                  {formatLocal(run.scheduledTime)}{' '}
                  <span className="text-slate-500">({relative(run.scheduledTime, now)})</span>
                </span>,
              ],
              [
                'Started',
                <span key="st" className="tabular-nums">
                  {formatLocal(run.startedAt)}
                </span>,
              ],
              ['Start lag', formatMs(durationBetween(run.scheduledTime, run.startedAt))],
              [
                'Finished',
                <span key="f" className="tabular-nums">
                  {formatLocal(run.finishedAt)}
                </span>,
              ],
              ['Total time', formatMs(durationBetween(run.startedAt, run.finishedAt))],
            ]}
          />
        </Card>
        <Card title="Run">
          <DefinitionList
            items={[
              [
                'Trigger',
                <span key="t" className="capitalize">
                  {run.trigger}
                </span>,
              ],
              ['Attempts', run.attempt],
              ...(run.skipReason
                ? ([
                    [
                      'Skipped because',
                      run.skipReason === 'overlap'
                        ? 'the previous run was still running (overlap policy: skip)'
                        : 'it was missed while nothing could run it (misfire policy)',
                    ],
                  ] as Array<[string, string]>)
                : []),
              ...(run.replayOf
                ? ([
                    [
                      'Replay of',
                      <Link
                        key="r"
                        href={`/runs/${run.replayOf}`}
                        className="font-mono text-xs text-indigo-600 hover:underline"
                      >
                        {run.replayOf}
                      </Link>,
                    ],
                  ] as Array<[string, React.ReactNode]>)
                : []),
              [
                'Replays',
                replays.length ? (
                  <ul key="rp" className="space-y-1">
                    {replays.map((r) => (
                      <li key={r.id} className="flex items-center gap-2">
                        <Link href={`/runs/${r.id}`} className="font-mono text-xs text-indigo-600 hover:underline">
                          {r.id}
                        </Link>
                        <RunStatusBadge status={r.status} />
                      </li>
                    ))}
                  </ul>
                ) : (
                  <span key="rp" className="text-slate-500">
                    None
                  </span>
                ),
              ],
            ]}
          />
        </Card>
      </div>

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
              <Card
                title={
                  <span className="flex items-center gap-2">
                    Attempt {a.attempt}
                    <AttemptBadge status={a.status} />
                    {a.httpStatus ? (
                      <span className="font-mono text-xs text-slate-600">HTTP {a.httpStatus}</span>
                    ) : null}
                  </span>
                }
                actions={<span className="font-mono text-xs text-slate-500">{a.workerId ?? '—'}</span>}
              >
                <div className="grid gap-5 lg:grid-cols-2">
                  <DefinitionList
                    items={[
                      [
                        'Worker',
                        <span key="w" className="font-mono text-xs break-all">
                          {a.workerId ?? '—'}
                        </span>,
                      ],
                      [
                        'Started',
                        <span key="s" className="tabular-nums">
                          {formatLocal(a.startedAt)}
                        </span>,
                      ],
                      [
                        'Finished',
                        <span key="f" className="tabular-nums">
                          {formatLocal(a.finishedAt)}
                        </span>,
                      ],
                      ...(a.lagMs !== null ? ([['Start lag', formatMs(a.lagMs)]] as Array<[string, string]>) : []),
                      ['Duration', formatMs(a.durationMs)],
                      ['HTTP status', a.httpStatus ?? '—'],
                      ...(a.error
                        ? ([
                            [
                              'Error',
                              <span key="e" className="text-rose-700">
                                {a.error}
                              </span>,
                            ],
                          ] as Array<[string, React.ReactNode]>)
                        : []),
                    ]}
                  />
                  <div className="min-w-0 space-y-4">
                    <div>
                      <h3 className="mb-1 text-xs font-semibold tracking-wide text-slate-500 uppercase">
                        Request headers sent
                      </h3>
                      {a.requestHeaders && Object.keys(a.requestHeaders).length ? (
                        <pre className="max-h-80 overflow-auto rounded bg-slate-50 p-2.5 font-mono text-xs leading-relaxed">
                          {Object.entries(a.requestHeaders)
                            .sort(([x], [y]) => x.localeCompare(y))
                            .map(([k, v]) => `${k}: ${v}`)
                            .join('\n')}
                        </pre>
                      ) : (
                        <p className="text-sm text-slate-500">Not recorded</p>
                      )}
                    </div>
                    <div>
                      <h3 className="mb-1 text-xs font-semibold tracking-wide text-slate-500 uppercase">
                        Response (first 4 KiB)
                      </h3>
                      {a.responseSnippet ? (
                        <pre className="max-h-60 overflow-auto rounded bg-slate-50 p-2.5 font-mono text-xs leading-relaxed whitespace-pre-wrap break-all">
                          {a.responseSnippet}
                        </pre>
                      ) : (
                        <p className="text-sm text-slate-500">
                          {a.status === 'running' ? 'Waiting for the response …' : 'Empty'}
                        </p>
                      )}
                    </div>
                  </div>
                </div>
              </Card>
            </li>
          ))}
        </ol>
      )}
    </>
  );
}

function AttemptBadge({ status }: { status: AttemptStatus }) {
  if (status === 'failed') return <Badge tone="red">Failed</Badge>;
  return <RunStatusBadge status={status} />;
}
