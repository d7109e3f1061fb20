// Schedule preview, signing secret, limits, health and the OpenAPI document.
import { pingDatabase } from '@belfry/db';
import { PROBLEMS } from '../../openapi/problems';
import { SchedulePreviewQuery } from '../../schemas/queries';
import { Health, Limits, SchedulePreview, SigningSecret } from '../../schemas/resources';
import { getLimits } from '../../services/limits';
import { AppError } from '../../errors';
import { previewSchedule } from '../../services/schedule-preview';
import { readSigningSecret, rotateSigningSecret } from '../../services/signing-secrets';
import { json, problem } from '../response';
import { publicRoute, type Route, route } from '../route';

const HEALTH_TIMEOUT_MS = 1_500;

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, expired]).finally(() => clearTimeout(timer));
}

const secretOk = { description: 'The signing secret', content: { 'application/json': { schema: SigningSecret } } };

export const miscRoutes = [
  route({
    method: 'GET',
    path: '/api/v1/schedule/preview',
    operationId: 'previewSchedule',
    summary: 'The next fire times of a cron expression or an interval',
    description:
      'Exactly the times the scheduler will use: the next `count` (default 10, at most 100) fire times strictly ' +
      'after `from` (default now). Give `expression` (and `timezone`) or `everySeconds` (counted from `from`). ' +
      'With `jitterSeconds` and `jobId`, `dueTimes` says when each occurrence of that job starts (its time plus the ' +
      "job's jitter offset).",
    tag: 'Schedules',
    scope: 'jobs:read',
    query: SchedulePreviewQuery,
    responses: { 200: { description: 'Fire times', content: { 'application/json': { schema: SchedulePreview } } } },
    async handle({ deps, actor, query }) {
      return json(200, await previewSchedule(deps, actor, query));
    },
  }),
  route({
    method: 'GET',
    path: '/api/v1/signing-secret',
    operationId: 'getSigningSecret',
    summary: "The tenant's webhook signing secret",
    tag: 'Signing secret',
    scope: 'admin',
    responses: { 200: secretOk },
    async handle({ deps, actor }) {
      return json(200, await readSigningSecret(deps, actor));
    },
  }),
  route({
    method: 'POST',
    path: '/api/v1/signing-secret/rotate',
    operationId: 'rotateSigningSecret',
    summary: 'Rotate the signing secret',
    description: 'The previous secret keeps signing alongside the new one for 24 hours.',
    tag: 'Signing secret',
    scope: 'admin',
    responses: { 200: secretOk },
    async handle({ deps, actor }) {
      return json(200, await rotateSigningSecret(deps, actor));
    },
  }),
  route({
    method: 'GET',
    path: '/api/v1/limits',
    operationId: 'getLimits',
    summary: "The tenant's limits and usage",
    description:
      'A create, update or resume that would pass a limit answers 422 with `type` ending in `/quota-exceeded`, ' +
      'naming the limit (`quota`), its value (`limit`) and the usage before the change (`current`).',
    tag: 'Limits',
    scope: 'jobs:read',
    responses: { 200: { description: 'Limits and usage', content: { 'application/json': { schema: Limits } } } },
    async handle({ deps, actor }) {
      return json(200, await getLimits(deps, actor));
    },
  }),
  publicRoute({
    method: 'GET',
    path: '/api/v1/healthz',
    operationId: 'health',
    summary: 'Whether the API can reach its database',
    tag: 'Meta',
    responses: {
      200: { description: 'Healthy', content: { 'application/json': { schema: Health } } },
      503: PROBLEMS[503],
    },
    async handle({ getDeps }) {
      // Public and unauthenticated: a failure says only that the database is unreachable.
      // The driver's message (hosts, ports, user names) goes to the log. Bounded: a database
      // that does not answer at all is away (503 within ~2 s), not slow.
      const started = Date.now();
      const deps = await withTimeout(getDeps(), HEALTH_TIMEOUT_MS).catch(() => {
        throw new AppError('unavailable', 'the database is unreachable');
      });
      try {
        await pingDatabase(deps.pool, Math.max(100, HEALTH_TIMEOUT_MS - (Date.now() - started)));
      } catch (err) {
        deps.log.error({ err }, 'health check: database unreachable');
        return problem(new AppError('unavailable', 'the database is unreachable'));
      }
      return json(200, { status: 'ok' });
    },
  }),
];

/** GET /api/v1/openapi.json; takes the route table lazily because it is part of it. */
export function openApiRoute(document: () => unknown): Route {
  return publicRoute({
    method: 'GET',
    path: '/api/v1/openapi.json',
    operationId: 'openApiDocument',
    summary: 'This OpenAPI 3.1 document',
    tag: 'Meta',
    responses: { 200: { description: 'The document', content: { 'application/json': {} } } },
    async handle() {
      return json(200, document(), { 'cache-control': 'public, max-age=300' });
    },
  });
}
