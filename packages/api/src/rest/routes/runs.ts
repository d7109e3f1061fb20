// /api/v1/runs and /api/v1/dead-letter: thin handlers over the run and dead-letter services.
import { z } from 'zod';
import { PROBLEMS } from '../../openapi/problems';
import { DeadLetterQuery, DeadLetterReplayBody } from '../../schemas/queries';
import { DeadLetterPage, ReplayResult, Run } from '../../schemas/resources';
import { listDeadLetter, replayDeadLetter } from '../../services/dead-letter';
import { cancelRun, getRun, replayRun } from '../../services/runs';
import { json } from '../response';
import { route } from '../route';

const runOk = { description: 'The run', content: { 'application/json': { schema: Run } } };

export const runRoutes = [
  route({
    method: 'GET',
    path: '/api/v1/runs/{runId}',
    operationId: 'getRun',
    summary: 'Get a run with every attempt',
    tag: 'Runs',
    scope: 'runs:read',
    responses: { 200: runOk },
    async handle({ deps, actor, params }) {
      return json(200, await getRun(deps, actor, params.runId as string));
    },
  }),
  route({
    method: 'POST',
    path: '/api/v1/runs/{runId}/cancel',
    operationId: 'cancelRun',
    summary: 'Cancel a run that has not finished',
    description: 'Pending, retry-waiting (`failed`) and running runs can be cancelled; finished ones answer 409.',
    tag: 'Runs',
    scope: 'runs:write',
    responses: { 200: runOk, 409: PROBLEMS[409] },
    async handle({ deps, actor, params }) {
      return json(200, await cancelRun(deps, actor, params.runId as string));
    },
  }),
  route({
    method: 'POST',
    path: '/api/v1/runs/{runId}/replay',
    operationId: 'replayRun',
    summary: "Run a finished run's job again now, as a new run linked to it",
    description:
      'Finished means succeeded, dead, cancelled or skipped; others answer 409. Every call makes a new run, ' +
      'also for a run replayed before (unlike POST /dead-letter/replay, which replays a dead run only once).',
    tag: 'Runs',
    scope: 'runs:write',
    responses: {
      201: {
        description: 'The new run (trigger `replay`, `replayOf` the original)',
        headers: z.object({ Location: z.string() }),
        content: { 'application/json': { schema: Run } },
      },
      409: PROBLEMS[409],
    },
    async handle({ deps, actor, params }) {
      const run = await replayRun(deps, actor, params.runId as string);
      return json(201, run, { location: `/api/v1/runs/${run.id}` });
    },
  }),
  route({
    method: 'GET',
    path: '/api/v1/dead-letter',
    operationId: 'listDeadLetter',
    summary: 'Dead runs, replayed or not, newest death first',
    description:
      'A replayed dead run stays dead and stays listed; `replayedBy` names its latest replay (null when it has ' +
      'none). Runs of deleted jobs are not listed. If a replay dies too, it is listed itself.',
    tag: 'Dead letter',
    scope: 'runs:read',
    query: DeadLetterQuery,
    responses: {
      200: { description: 'A page of dead runs', content: { 'application/json': { schema: DeadLetterPage } } },
    },
    async handle({ deps, actor, query }) {
      return json(200, await listDeadLetter(deps, actor, query));
    },
  }),
  route({
    method: 'POST',
    path: '/api/v1/dead-letter/replay',
    operationId: 'replayDeadLetter',
    summary: 'Replay dead runs',
    description:
      '`{ "runIds": [...] }` (at most 500) or `{ "all": true, "jobId"?: ... }`; `dryRun: true` counts ' +
      'without replaying. Idempotent: dead runs that have a replay already (`replayedBy` set) are skipped, so ' +
      'repeating a request replays nothing twice.',
    tag: 'Dead letter',
    scope: 'runs:write',
    body: DeadLetterReplayBody,
    responses: {
      200: {
        description: 'How many were (or would be) replayed',
        content: { 'application/json': { schema: ReplayResult } },
      },
    },
    async handle({ deps, actor, body }) {
      return json(200, await replayDeadLetter(deps, actor, body));
    },
  }),
];
