'use client';
// The engine cluster: each node's roles, heartbeat, scheduler partitions and runs in
// flight, its start-lag percentiles; the queue waiting per priority; this workspace's own
// start lag; which nodes can run container targets (and a warning when none can). Polls every 2 s.
// Operators also see every workspace's queue and the nodes' hosts and load; everyone else sees
// their own workspace's numbers (the server decides).
import type { LagSummary } from '@belfry/api';
import { useQuery } from '@tanstack/react-query';
import { Badge } from '@/components/badge';
import { Card, PageHeader } from '@/components/card';
import { Empty, ErrorState, Notice } from '@/components/empty';
import { Loading } from '@/components/spinner';
import { Table, TBody, Td, Th } from '@/components/table';
import { errorMessage } from '../../_lib/errors';
import { formatLocal, formatMs, relative, useNow } from '../../_lib/time';
import { useTRPC } from '../../_lib/trpc';

function Lag({ lag }: { lag: LagSummary | null }) {
  if (!lag?.count) return <span className="text-slate-400">—</span>;
  return (
    <span className="tabular-nums">
      {formatMs(lag.p50)} / {formatMs(lag.p95)} / {formatMs(lag.p99)}
    </span>
  );
}

function Stat({ label, value, hint }: { label: string; value: React.ReactNode; hint?: React.ReactNode }) {
  return (
    <div className="rounded-lg border border-slate-200 bg-white p-4 shadow-xs">
      <div className="text-xs font-medium text-slate-500">{label}</div>
      <div className="mt-1 text-2xl font-semibold tracking-tight text-slate-900 tabular-nums">{value}</div>
      {hint ? <div className="mt-0.5 text-xs text-slate-500">{hint}</div> : null}
    </div>
  );
}

export function ClusterPage() {
  const trpc = useTRPC();
  const now = useNow(1_000);
  const cluster = useQuery({ ...trpc.cluster.overview.queryOptions(), refetchInterval: 2_000 });

  const header = (
    <PageHeader
      title="Cluster"
      description="The engine nodes that schedule and deliver runs. Any number can run against the same database (npm run engine); they share the work and take over each other's partitions when one stops."
    />
  );
  if (cluster.isPending)
    return (
      <>
        {header}
        <Loading />
      </>
    );
  if (cluster.isError)
    return (
      <>
        {header}
        <ErrorState error={errorMessage(cluster.error)} retry={() => void cluster.refetch()} />
      </>
    );
  const c = cluster.data;
  const up = c.nodes.filter((n) => n.state === 'up');
  const schedulers = up.filter((n) => n.roles.includes('scheduler')).length;
  const workers = up.filter((n) => n.roles.includes('worker')).length;
  const waiting = c.queue.reduce((a, q) => a + q.tenant, 0);
  const operator = c.scope === 'operator';
  const waitingAll = c.queue.reduce((a, q) => a + (q.total ?? 0), 0);

  return (
    <>
      {header}
      {c.containerNodes === 0 ? (
        <div className="mb-4" data-testid="no-container-nodes">
          <Notice tone="warn">
            No live engine node can run container targets: container runs wait until a node with a Docker Engine that
            answers (and <code className="font-mono">BELFRY_CONTAINER_IMAGES</code> set) is up.
          </Notice>
        </div>
      ) : null}
      <div className="grid gap-4 sm:grid-cols-2 lg:grid-cols-4">
        <Stat label="Nodes up" value={up.length} hint={`${schedulers} scheduling, ${workers} delivering`} />
        <Stat
          label="Partitions owned"
          value={`${c.partitions.owned} / ${c.partitions.total}`}
          hint={
            c.partitions.owned < c.partitions.total
              ? 'Unowned partitions are not being scheduled'
              : 'Every partition has a scheduler'
          }
        />
        <Stat
          label="Queued (this workspace)"
          value={waiting}
          hint={operator ? `${waitingAll} across all workspaces` : 'Runs waiting for a worker'}
        />
        <Stat
          label="Start lag p50 / p95 / p99"
          value={<span className="text-lg">{c.tenantStartLagMs.count ? <Lag lag={c.tenantStartLagMs} /> : '—'}</span>}
          hint={`This workspace's scheduled runs, last 5 min (${c.tenantStartLagMs.count} runs)`}
        />
      </div>

      <Card
        className="mt-6"
        title="Engine nodes"
        padded={false}
        description="Nodes heartbeat every 2 s; one silent for 15 s is shown as lost, and its partitions pass to the others when its leases expire."
      >
        {c.nodes.length === 0 ? (
          <Empty title="No engine nodes">
            Nothing is scheduling or delivering runs. Start one with <code className="font-mono">npm start</code> or{' '}
            <code className="font-mono">npm run engine</code>.
          </Empty>
        ) : (
          <Table label="Engine nodes">
            <thead>
              <tr>
                <Th>Node</Th>
                <Th>State</Th>
                <Th>Roles</Th>
                <Th className="text-right">Heartbeat</Th>
                <Th className="text-right">Partitions</Th>
                {operator ? (
                  <>
                    <Th className="text-right">In flight</Th>
                    <Th className="text-right">Start lag p50 / p95 / p99</Th>
                    <Th className="text-right">Takeovers</Th>
                  </>
                ) : null}
                <Th>Containers</Th>
                <Th>Started</Th>
              </tr>
            </thead>
            <TBody>
              {c.nodes.map((n) => (
                <tr key={n.id} className={n.state === 'stopped' ? 'text-slate-400' : ''}>
                  <Td>
                    <div className="font-mono text-xs font-medium whitespace-nowrap text-slate-900">{n.id}</div>
                    {n.hostname !== null ? (
                      <div className="text-xs text-slate-500">
                        {n.hostname} · pid {n.pid}
                        {n.version ? ` · v${n.version}` : ''}
                      </div>
                    ) : null}
                  </Td>
                  <Td>
                    {n.state === 'up' ? (
                      <Badge tone="green">Up</Badge>
                    ) : n.state === 'lost' ? (
                      <Badge tone="red">Lost</Badge>
                    ) : (
                      <Badge tone="zinc">Stopped</Badge>
                    )}
                  </Td>
                  <Td>
                    <div className="flex gap-1">
                      {n.roles.map((r) => (
                        <Badge key={r} tone={r === 'scheduler' ? 'indigo' : 'blue'}>
                          {r}
                        </Badge>
                      ))}
                    </div>
                  </Td>
                  <Td
                    className={`text-right whitespace-nowrap tabular-nums ${n.state === 'lost' ? 'text-rose-700' : ''}`}
                  >
                    {formatMs(n.heartbeatAgeMs + Math.max(0, now - Date.parse(c.generatedAt)))} ago
                  </Td>
                  <Td className="text-right tabular-nums">{n.state === 'stopped' ? '—' : n.partitionsOwned}</Td>
                  {operator ? (
                    <>
                      <Td className="text-right tabular-nums">{n.state === 'stopped' ? '—' : (n.inFlight ?? '—')}</Td>
                      <Td className="text-right">
                        <Lag lag={n.startLagMs} />
                      </Td>
                      <Td className="text-right tabular-nums">{n.takeovers ?? '—'}</Td>
                    </>
                  ) : null}
                  <Td className="whitespace-nowrap">
                    {!n.containers ? (
                      <span className="text-slate-400">Off</span>
                    ) : n.containers.available ? (
                      <Badge tone="green">{`Docker · ${n.containers.slots ?? '?'} slots`}</Badge>
                    ) : (
                      <Badge tone="red" title={n.containers.error ?? undefined}>
                        Docker unavailable
                      </Badge>
                    )}
                  </Td>
                  <Td className="whitespace-nowrap" title={formatLocal(n.startedAt)}>
                    {relative(n.startedAt, now)}
                  </Td>
                </tr>
              ))}
            </TBody>
          </Table>
        )}
      </Card>

      <Card
        className="mt-6"
        title="Queue depth"
        padded={false}
        description="Runs waiting for a worker, per priority: due now, and scheduled for later (retries waiting out their backoff)."
      >
        <Table label="Queue depth">
          <thead>
            <tr>
              <Th>Priority</Th>
              <Th className="text-right">This workspace: due now</Th>
              <Th className="text-right">This workspace: all waiting</Th>
              {operator ? (
                <>
                  <Th className="text-right">All workspaces: due now</Th>
                  <Th className="text-right">All workspaces: all waiting</Th>
                </>
              ) : null}
            </tr>
          </thead>
          <TBody>
            {c.queue.map((q) => (
              <tr key={q.priority}>
                <Td className="font-medium capitalize text-slate-900">{q.priority}</Td>
                <Td className="text-right tabular-nums">{q.tenantDue}</Td>
                <Td className="text-right tabular-nums">{q.tenant}</Td>
                {operator ? (
                  <>
                    <Td className="text-right tabular-nums">{q.totalDue}</Td>
                    <Td className="text-right tabular-nums">{q.total}</Td>
                  </>
                ) : null}
              </tr>
            ))}
          </TBody>
        </Table>
      </Card>
    </>
  );
}
