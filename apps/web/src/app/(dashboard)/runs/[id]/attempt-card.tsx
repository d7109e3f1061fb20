'use client';
// One delivery attempt of a run: worker, timings, HTTP status and error beside the request
// headers that were sent (redacted by the engine) and the start of the response — or, for a
// broker target (amqp, nats), the message headers and what the broker confirmed; for a
// container, its exit code and the last 4 KiB of its output.
import { Badge } from '@/components/badge';
import { Card, DefinitionList } from '@/components/card';
import { RunStatusBadge } from '@/components/status';
import { formatLocal, formatMs } from '../../../_lib/time';
import type { Outputs } from '../../../_lib/trpc';

type Attempt = Outputs['runs']['get']['attempts'][number];

function AttemptBadge({ status }: { status: Attempt['status'] }) {
  if (status === 'failed') return <Badge tone="red">Failed</Badge>;
  return <RunStatusBadge status={status} />;
}

function Excerpt({ title, children }: { title: string; children: React.ReactNode }) {
  return (
    <div>
      <h3 className="mb-1 text-xs font-semibold tracking-wide text-slate-500 uppercase">{title}</h3>
      {children}
    </div>
  );
}

const BROKER_KINDS = new Set(['amqp', 'nats']);

/** `kind`: the job's target kind, when known (an attempt with an exit code ran a container). */
export function AttemptCard({ attempt: a, kind }: { attempt: Attempt; kind?: string | null }) {
  const isContainer = kind === 'container' || a.exitCode !== null;
  const broker = !isContainer && (kind ? BROKER_KINDS.has(kind) : false);
  return (
    <Card
      title={
        <span className="flex items-center gap-2">
          Attempt {a.attempt}
          <AttemptBadge status={a.status} />
          {a.httpStatus ? <span className="font-mono text-xs text-slate-600">HTTP {a.httpStatus}</span> : null}
          {a.exitCode !== null ? <span className="font-mono text-xs text-slate-600">exit {a.exitCode}</span> : null}
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
            ...(isContainer
              ? ([['Exit code', a.exitCode ?? '—']] as Array<[string, React.ReactNode]>)
              : broker
                ? []
                : ([['HTTP status', a.httpStatus ?? '—']] as Array<[string, React.ReactNode]>)),
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
        {isContainer ? (
          <div className="min-w-0">
            <Excerpt title="Output (last 4 KiB)">
              {a.responseSnippet ? (
                <pre
                  data-testid="container-output"
                  className="max-h-80 overflow-auto rounded bg-slate-900 p-2.5 font-mono text-xs leading-relaxed whitespace-pre-wrap break-all text-slate-100"
                >
                  {a.responseSnippet}
                </pre>
              ) : (
                <p className="text-sm text-slate-500">{a.status === 'running' ? 'Running …' : 'No output'}</p>
              )}
            </Excerpt>
          </div>
        ) : (
          <div className="min-w-0 space-y-4">
            <Excerpt title={broker ? 'Message headers sent' : 'Request headers sent'}>
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
            </Excerpt>
            <Excerpt title={broker ? 'Broker confirmation' : 'Response (first 4 KiB)'}>
              {a.responseSnippet ? (
                <pre className="max-h-60 overflow-auto rounded bg-slate-50 p-2.5 font-mono text-xs leading-relaxed whitespace-pre-wrap break-all">
                  {a.responseSnippet}
                </pre>
              ) : (
                <p className="text-sm text-slate-500">
                  {a.status === 'running'
                    ? `Waiting for the ${broker ? 'broker' : 'response'} …`
                    : broker
                      ? 'Not confirmed'
                      : 'Empty'}
                </p>
              )}
            </Excerpt>
          </div>
        )}
      </div>
    </Card>
  );
}
