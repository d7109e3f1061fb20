// How run and job statuses look everywhere: one colour per outcome (also used by the
// sparkline and the timeline), words next to colour so colour is never the only signal.
import type { JobStatus, RunStatus } from '@belfry/client';
import Link from 'next/link';
import { Badge, type Tone } from './badge';

// The statuses are the API's (generated from its OpenAPI document); every record below is
// keyed by them, so a status added to the API fails the typecheck here until it has a look.
export type { JobStatus, RunStatus } from '@belfry/client';

/** In the API's order (pending first, skipped last). */
export const RUN_STATUS_LIST = Object.keys({
  pending: true,
  running: true,
  succeeded: true,
  failed: true,
  dead: true,
  cancelled: true,
  skipped: true,
} satisfies Record<RunStatus, true>) as RunStatus[];

export const RUN_COLORS: Record<RunStatus, string> = {
  succeeded: '#10b981',
  failed: '#f59e0b',
  dead: '#e11d48',
  running: '#0ea5e9',
  pending: '#94a3b8',
  cancelled: '#a1a1aa',
  skipped: '#a78bfa',
};

const RUN_TONES: Record<RunStatus, Tone> = {
  succeeded: 'green',
  failed: 'amber',
  dead: 'red',
  running: 'blue',
  pending: 'slate',
  cancelled: 'zinc',
  skipped: 'violet',
};

export const RUN_STATUS_HELP: Record<RunStatus, string> = {
  pending: 'Waiting for a worker',
  running: 'An attempt is in progress',
  succeeded: 'The target answered 2xx',
  failed: 'The last attempt failed; a retry is scheduled',
  dead: 'Attempts exhausted or the failure was not retryable',
  cancelled: 'Cancelled before it finished',
  skipped: 'The occurrence was recorded but not run',
};

const RUN_LABELS: Record<RunStatus, string> = {
  pending: 'Pending',
  running: 'Running',
  succeeded: 'Succeeded',
  failed: 'Retrying',
  dead: 'Dead',
  cancelled: 'Cancelled',
  skipped: 'Skipped',
};

export function runLabel(status: RunStatus): string {
  return RUN_LABELS[status];
}

export function RunStatusBadge({ status, skipReason }: { status: RunStatus; skipReason?: string | null }) {
  return (
    <Badge tone={RUN_TONES[status]} title={RUN_STATUS_HELP[status]}>
      <span className="h-1.5 w-1.5 rounded-full" style={{ background: RUN_COLORS[status] }} aria-hidden="true" />
      {RUN_LABELS[status]}
      {status === 'skipped' && skipReason ? <span className="font-normal">({skipReason})</span> : null}
    </Badge>
  );
}

export function JobStatusBadge({ status }: { status: JobStatus }) {
  const tone: Tone = status === 'active' ? 'green' : status === 'paused' ? 'amber' : 'slate';
  const label = status === 'active' ? 'Active' : status === 'paused' ? 'Paused' : 'Completed';
  return <Badge tone={tone}>{label}</Badge>;
}

/** The last outcomes, oldest left, newest right; each bar links to its run. */
export function Sparkline({
  runs,
  slots = 20,
}: {
  runs: Array<{ id: string; status: RunStatus; scheduledTime: string }>;
  slots?: number;
}) {
  const ordered = [...runs].reverse();
  const counts = ordered.reduce<Record<string, number>>((acc, r) => {
    acc[r.status] = (acc[r.status] ?? 0) + 1;
    return acc;
  }, {});
  const summary = ordered.length
    ? `Last ${ordered.length} runs: ${Object.entries(counts)
        .map(([s, n]) => `${n} ${RUN_LABELS[s as RunStatus].toLowerCase()}`)
        .join(', ')}`
    : 'No runs yet';
  return (
    <div className="flex h-5 items-end gap-[2px]" role="img" aria-label={summary} title={summary}>
      {Array.from({ length: slots - ordered.length }, (_, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: placeholders have no identity
        <span key={`e${i}`} className="h-1 w-1 rounded-[1px] bg-slate-200" />
      ))}
      {ordered.map((r) => (
        <Link
          key={r.id}
          href={`/runs/${r.id}`}
          tabIndex={-1}
          aria-hidden="true"
          className="w-1 rounded-[1px] hover:opacity-70"
          style={{
            background: RUN_COLORS[r.status],
            height:
              r.status === 'succeeded' ? '100%' : r.status === 'skipped' || r.status === 'cancelled' ? '40%' : '75%',
          }}
        />
      ))}
    </div>
  );
}

export function Legend({ statuses = RUN_STATUS_LIST }: { statuses?: RunStatus[] }) {
  return (
    <ul className="flex flex-wrap gap-x-4 gap-y-1 text-xs text-slate-600">
      {statuses.map((s) => (
        <li key={s} className="inline-flex items-center gap-1.5">
          <span className="h-2.5 w-2.5 rounded-sm" style={{ background: RUN_COLORS[s] }} aria-hidden="true" />
          {RUN_LABELS[s]}
        </li>
      ))}
    </ul>
  );
}
