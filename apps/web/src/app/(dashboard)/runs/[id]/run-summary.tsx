'use client';
// A run's timing (scheduled, started, start lag, finished) and what it is (trigger, attempts,
// why it was skipped, what it replays and what replayed it).
import Link from 'next/link';
import { Card, DefinitionList } from '@/components/card';
import { RunStatusBadge } from '@/components/status';
import { durationBetween, formatLocal, formatMs, relative } from '../../../_lib/time';
import type { Outputs } from '../../../_lib/trpc';

type Detail = Outputs['runs']['get'];

export function RunSummary({ run, replays, now }: { run: Detail['run']; replays: Detail['replays']; now: number }) {
  return (
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
  );
}
