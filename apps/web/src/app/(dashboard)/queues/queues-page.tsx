'use client';
// Pull queues: per queue, the runs waiting for this workspace's own workers (and how many are
// due), the runs they hold, when one last claimed, and the workers seen, a page at a time by
// name. Polls every 2 s.
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Card, PageHeader } from '@/components/card';
import { Empty, ErrorState } from '@/components/empty';
import { Pager, useCursorPages } from '@/components/pager';
import { Loading } from '@/components/spinner';
import { Table, TableHead, TBody, Td } from '@/components/table';
import { errorMessage } from '../../_lib/errors';
import { useNow } from '../../_lib/time';
import { When } from '../../_lib/when';
import { useTRPC } from '../../_lib/trpc';

const PAGE = 50;

export function QueuesPage() {
  const trpc = useTRPC();
  const now = useNow(1_000);
  const pages = useCursorPages();
  const queues = useQuery({
    ...trpc.queues.list.queryOptions({ limit: PAGE, ...(pages.cursor ? { cursor: pages.cursor } : {}) }),
    refetchInterval: 2_000,
    placeholderData: keepPreviousData,
  });

  const header = (
    <PageHeader
      title="Queues"
      description="Pull queues: runs of jobs whose target is a pull queue wait here until your own workers claim them (belfry worker --queue <name> -- <command>, or the claim endpoint)."
    />
  );
  if (queues.isPending)
    return (
      <>
        {header}
        <Loading />
      </>
    );
  if (queues.isError)
    return (
      <>
        {header}
        <ErrorState error={errorMessage(queues.error)} retry={() => void queues.refetch()} />
      </>
    );
  const list = queues.data.data;
  return (
    <>
      {header}
      <Card title="Pull queues" padded={false}>
        {list.length === 0 ? (
          <Empty title="No pull queues">
            Create a job whose target is <code className="font-mono">{'{ "type": "pull", "queue": "reports" }'}</code>{' '}
            (or <code className="font-mono">belfry jobs create --queue reports ...</code>), then run{' '}
            <code className="font-mono">npx belfry worker --queue reports -- ./your-command</code> where the work should
            happen.
          </Empty>
        ) : (
          <>
            <Table label="Pull queues">
              <TableHead
                columns={[
                  'Queue',
                  { label: 'Waiting', className: 'text-right' },
                  { label: 'Due now', className: 'text-right' },
                  { label: 'Claimed', className: 'text-right' },
                  'Last claim',
                  'Workers seen (24 h)',
                ]}
              />
              <TBody>
                {list.map((q) => (
                  <tr key={q.name}>
                    <Td className="font-mono text-xs font-medium text-slate-900">{q.name}</Td>
                    <Td className="text-right tabular-nums">{q.waiting}</Td>
                    <Td className="text-right tabular-nums">{q.due}</Td>
                    <Td className="text-right tabular-nums">{q.claimed}</Td>
                    <Td className="whitespace-nowrap">
                      <When at={q.lastClaimAt} now={now} never="never" />
                    </Td>
                    <Td>
                      {q.workers.length === 0 ? (
                        <span className="text-slate-400">none</span>
                      ) : (
                        <ul aria-label={`Workers of ${q.name}`} className="space-y-0.5 text-xs">
                          {q.workers.map((w) => (
                            <li key={w.name}>
                              <span className="font-mono text-slate-800">{w.name}</span>{' '}
                              <span className="text-slate-500">
                                seen <When at={w.lastSeenAt} now={now} never="never" />
                              </span>
                            </li>
                          ))}
                        </ul>
                      )}
                    </Td>
                  </tr>
                ))}
              </TBody>
            </Table>
            <Pager pages={pages} nextCursor={queues.data.nextCursor} labels={['Previous', 'Next']} />
          </>
        )}
      </Card>
    </>
  );
}
