'use client';
// The pull-queue target: runs wait in Belfry, in the tenant's queue of this name, until one of
// the tenant's own workers claims them (`belfry worker --queue <name>`). Nothing is delivered,
// so there are no headers and nothing secret: the queue name is all there is.
import type { Target } from '@belfry/client';
import Link from 'next/link';
import { TextField } from '@/components/form-fields';
import { defineTargetUi } from './kind';

interface PullDraft {
  queue: string;
}

type PullTarget = Extract<Target, { type: 'pull' }>;

/** Pull queue names (docs/api.md, "Targets"). */
const QUEUE_NAME = /^[A-Za-z0-9._-]{1,100}$/;

export const pullUi = defineTargetUi<PullDraft>({
  type: 'pull',
  label: 'Pull queue',
  description:
    'Runs wait in a queue until one of your workers claims them (belfry worker, or the queue API): for machines that cannot receive webhooks.',
  headers: false,
  empty: () => ({ queue: '' }),
  fromTarget: (t) => ({ queue: t.type === 'pull' ? t.queue : '' }),
  toTarget: (d) => ({ type: 'pull', queue: d.queue.trim() }),
  check: (d) => {
    const queue = d.queue.trim();
    if (!queue) return [{ path: 'target.queue', message: 'is required' }];
    if (!QUEUE_NAME.test(queue)) {
      return [{ path: 'target.queue', message: 'must be 1..100 characters of letters, digits, ".", "_" or "-"' }];
    }
    return [];
  },
  fields: ['queue'],
  summary: (t) => `pull queue ${(t as PullTarget).queue}`,
  rows: (t) => [
    [
      'Queue',
      <Link key="v" href="/queues" className="font-mono text-xs text-indigo-600 hover:underline">
        {(t as PullTarget).queue}
      </Link>,
    ],
  ],
  Editor: ({ draft, set, at }) => (
    <div className="flex flex-wrap gap-3">
      <TextField
        label="Queue"
        hint={
          <>
            Your workers claim from it:{' '}
            <code>npx belfry worker --queue {draft.queue.trim() || 'reports'} -- command</code>
          </>
        }
        errors={at('target.queue')}
        fieldClassName="min-w-[14rem] flex-1"
        value={draft.queue}
        onChange={(e) => set({ queue: e.target.value })}
        placeholder="reports"
        className="font-mono"
        spellCheck={false}
      />
    </div>
  ),
});
