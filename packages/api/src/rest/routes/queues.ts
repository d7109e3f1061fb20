// /api/v1/queues and the lease endpoints of /api/v1/runs (docs/api.md, "Pull queues"): thin
// handlers over the pull-queue service.
import { PROBLEMS } from '../../openapi/problems';
import {
  ClaimBody,
  ClaimResult,
  CompleteBody,
  HeartbeatBody,
  HeartbeatResult,
  ListQueuesQuery,
  PullQueueList,
  PullQueueParam,
} from '../../schemas/pull';
import { Run } from '../../schemas/resources';
import { parseInput } from '../../schemas/validate';
import { claimFromPullQueue, completePullRun, heartbeatPullRun, listPullQueues } from '../../services/pull-queues';
import { json } from '../response';
import { route } from '../route';

export const queueRoutes = [
  route({
    method: 'POST',
    path: '/api/v1/queues/{queue}/claim',
    operationId: 'claimRuns',
    summary: 'Claim due runs of a pull queue',
    description:
      'Leases up to `max` due runs of the queue to the caller for `leaseSeconds` (never past the job’s ' +
      '`timeoutSeconds`), each with a `leaseToken` for heartbeat and complete. With `waitSeconds`, waits up to that ' +
      'long for a run to come due when none is (a long-poll); answers `{ "data": [] }` when none did. Never hands ' +
      'out a run before its scheduled time. A lease that expires counts as a failed attempt (retried per `retry`, ' +
      'same run id). Needs the `queues:consume` scope.',
    tag: 'Pull queues',
    scope: 'queues:consume',
    body: ClaimBody,
    responses: { 200: { description: 'The claimed runs', content: { 'application/json': { schema: ClaimResult } } } },
    async handle({ deps, actor, params, body, request }) {
      const queue = parseInput(PullQueueParam, params.queue, ['queue']);
      return json(200, await claimFromPullQueue(deps, actor, queue, body, request.signal));
    },
  }),
  route({
    method: 'POST',
    path: '/api/v1/runs/{runId}/heartbeat',
    operationId: 'heartbeatRun',
    summary: 'Extend the lease of a claimed run',
    description:
      'Extends the lease to now + `leaseSeconds` (default 60; never past the job’s `timeoutSeconds` from the ' +
      'claim). 409 when the lease is no longer held (it expired, the run was cancelled, or it was claimed again).',
    tag: 'Pull queues',
    scope: 'queues:consume',
    body: HeartbeatBody,
    responses: {
      200: { description: 'The new expiry', content: { 'application/json': { schema: HeartbeatResult } } },
      409: PROBLEMS[409],
    },
    async handle({ deps, actor, params, body }) {
      return json(200, await heartbeatPullRun(deps, actor, params.runId as string, body));
    },
  }),
  route({
    method: 'POST',
    path: '/api/v1/runs/{runId}/complete',
    operationId: 'completeRun',
    summary: 'Report how a claimed run’s attempt ended',
    description:
      '`succeeded`, or `failed`: retried per the job’s `retry` (at least `retryAfterSeconds` later, capped at ' +
      '`maxDelaySeconds`), or dead when attempts are used up or `retryable` is false. `output` (≤ 4 KiB) is kept ' +
      'as the attempt’s `responseSnippet`. 409 with a stale lease token.',
    tag: 'Pull queues',
    scope: 'queues:consume',
    body: CompleteBody,
    responses: {
      200: { description: 'The run', content: { 'application/json': { schema: Run } } },
      409: PROBLEMS[409],
    },
    async handle({ deps, actor, params, body }) {
      return json(200, await completePullRun(deps, actor, params.runId as string, body));
    },
  }),
  route({
    method: 'GET',
    path: '/api/v1/queues',
    operationId: 'listQueues',
    summary: 'The tenant’s pull queues',
    description:
      'Every queue a job targets, has waiting runs or was claimed from: runs waiting (and due), claimed, the ' +
      'last claim and the workers seen in the last 24 hours. By name, a page at a time.',
    tag: 'Pull queues',
    scope: 'runs:read',
    query: ListQueuesQuery,
    responses: {
      200: { description: 'A page of pull queues', content: { 'application/json': { schema: PullQueueList } } },
    },
    async handle({ deps, actor, query }) {
      return json(200, await listPullQueues(deps, actor, query));
    },
  }),
];
