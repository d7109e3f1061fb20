// The cluster page: engine nodes (roles, heartbeat age, partitions owned, runs in flight,
// start-lag percentiles from the stats each node writes with its heartbeat), queue depth
// per priority (this tenant's and everyone's), and this tenant's own start lag over the last
// five minutes, measured from the runs table.
//
// What crosses tenants (other tenants' queue totals; node hosts, pids, versions, per-node
// load and lag) is shown only to operators (users.is_operator). Everyone else sees their own
// tenant's numbers and the nodes' health under neutral names: a node id embeds its hostname.
import { type PriorityDepth, queueDepth } from '@belfry/db';
import type { Actor, ServiceDeps } from '../context';
import { authorize } from '../security/scopes';

/** A node that has not heartbeated for this long is shown as lost (it heartbeats every 2 s). */
export const LOST_AFTER_MS = 15_000;
const STOPPED_NODES_SHOWN_FOR = '1 hour';

export interface LagSummary {
  count: number;
  p50: number | null;
  p95: number | null;
  p99: number | null;
}

export interface EngineNodeView {
  /** the node's id; for non-operators a neutral "node-N" */
  id: string;
  /** null for non-operators, like pid, version, inFlight, takeovers and startLagMs */
  hostname: string | null;
  pid: number | null;
  version: string | null;
  roles: string[];
  state: 'up' | 'lost' | 'stopped';
  startedAt: string;
  heartbeatAt: string;
  heartbeatAgeMs: number;
  /** partitions whose lease this node holds now (from partition_leases) */
  partitionsOwned: number;
  inFlight: number | null;
  takeovers: number | null;
  startLagMs: LagSummary | null;
  /** container runs on this node: null when it serves no container lane (BELFRY_CONTAINER_IMAGES unset) */
  containers: { available: boolean; slots: number | null; error: string | null } | null;
}

export interface QueueDepth {
  priority: PriorityDepth['priority'];
  /** every tenant's; null for non-operators */
  total: number | null;
  totalDue: number | null;
  tenant: number;
  tenantDue: number;
}

export interface ClusterOverview {
  /** operator: cluster-wide details; tenant: this tenant's numbers only */
  scope: 'operator' | 'tenant';
  nodes: EngineNodeView[];
  partitions: { total: number; owned: number };
  queue: QueueDepth[];
  tenantStartLagMs: LagSummary;
  /** live nodes whose Docker Engine answers: none means container runs wait (the page says so) */
  containerNodes: number;
  generatedAt: string;
}

function num(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}

function containersOf(v: unknown): EngineNodeView['containers'] {
  if (!v || typeof v !== 'object') return null;
  const o = v as Record<string, unknown>;
  return {
    available: o.available === true,
    slots: num(o.slots),
    error: typeof o.error === 'string' ? o.error : null,
  };
}

function lagOf(v: unknown): LagSummary | null {
  if (!v || typeof v !== 'object') return null;
  const o = v as Record<string, unknown>;
  return { count: num(o.count) ?? 0, p50: num(o.p50), p95: num(o.p95), p99: num(o.p99) };
}

export async function clusterOverview(
  deps: ServiceDeps,
  actor: Actor,
  viewer: { operator: boolean } = { operator: false },
): Promise<ClusterOverview> {
  authorize(actor, 'runs:read');
  const [nodes, leases, queue, lag] = await Promise.all([
    deps.pool.query<{
      id: string;
      hostname: string;
      pid: number;
      version: string | null;
      roles: string[];
      stats: Record<string, unknown>;
      started_at: Date;
      heartbeat_at: Date;
      stopped_at: Date | null;
      age_ms: number;
      owned: number;
    }>(
      `SELECT n.id, n.hostname, n.pid, n.version, n.roles, n.stats, n.started_at, n.heartbeat_at, n.stopped_at,
              (EXTRACT(EPOCH FROM (now() - n.heartbeat_at)) * 1000)::float8 AS age_ms,
              (SELECT count(*)::int FROM partition_leases l WHERE l.owner = n.id AND l.expires_at > now()) AS owned
         FROM engine_nodes n
        WHERE n.stopped_at IS NULL OR n.stopped_at > now() - interval '${STOPPED_NODES_SHOWN_FOR}'
        ORDER BY n.stopped_at IS NOT NULL, n.started_at, n.id`,
    ),
    deps.pool.query<{ total: number; owned: number }>(
      `SELECT count(*)::int AS total, count(*) FILTER (WHERE owner IS NOT NULL AND expires_at > now())::int AS owned
         FROM partition_leases`,
    ),
    queueDepth(deps.pool, actor.tenantId),
    deps.pool.query<{ count: number; p50: number | null; p95: number | null; p99: number | null }>(
      `SELECT count(*)::int AS count,
              percentile_disc(0.5) WITHIN GROUP (ORDER BY lag) AS p50,
              percentile_disc(0.95) WITHIN GROUP (ORDER BY lag) AS p95,
              percentile_disc(0.99) WITHIN GROUP (ORDER BY lag) AS p99
         FROM (SELECT GREATEST(0, EXTRACT(EPOCH FROM (started_at - scheduled_time)) * 1000)::float8 AS lag
                 FROM runs
                WHERE tenant_id = $1 AND scheduled_time > now() - interval '5 minutes' AND started_at IS NOT NULL
                  AND trigger = 'schedule') s`,
      [actor.tenantId],
    ),
  ]);
  const operator = viewer.operator;
  const views: EngineNodeView[] = nodes.rows.map((n) => ({
    id: n.id,
    hostname: n.hostname,
    pid: n.pid,
    version: n.version,
    roles: n.roles,
    state: n.stopped_at ? 'stopped' : n.age_ms > LOST_AFTER_MS ? 'lost' : 'up',
    startedAt: n.started_at.toISOString(),
    heartbeatAt: n.heartbeat_at.toISOString(),
    heartbeatAgeMs: Math.max(0, Math.round(n.age_ms)),
    partitionsOwned: n.owned,
    inFlight: num(n.stats.inFlight),
    takeovers: num(n.stats.takeovers),
    startLagMs: lagOf(n.stats.startLagMs),
    containers: containersOf(n.stats.containers),
  }));
  const view: ClusterOverview = {
    scope: operator ? 'operator' : 'tenant',
    nodes: views,
    containerNodes: views.filter((n) => n.state === 'up' && n.containers?.available).length,
    partitions: leases.rows[0] ?? { total: 0, owned: 0 },
    queue,
    tenantStartLagMs: lag.rows[0] ?? { count: 0, p50: null, p95: null, p99: null },
    generatedAt: new Date().toISOString(),
  };
  if (operator) return view;
  return {
    ...view,
    nodes: view.nodes.map((n, i) => ({
      ...n,
      id: `node-${i + 1}`,
      hostname: null,
      pid: null,
      version: null,
      inFlight: null,
      takeovers: null,
      startLagMs: null,
      // whether a node can run containers is everyone's business; why its engine is away is not
      containers: n.containers ? { ...n.containers, error: null } : null,
    })),
    queue: view.queue.map((q) => ({ ...q, total: null, totalDue: null })),
  };
}
