// The OpenAPI 3.1 document of /api/v1, generated from the route table: the same zod schemas
// that validate requests describe them here, so the document cannot drift from the code.
import { z } from 'zod';
import {
  createDocument,
  type ZodOpenApiOperationObject,
  type ZodOpenApiPathsObject,
  type ZodOpenApiResponsesObject,
} from 'zod-openapi';
import type { Route } from '../rest/route';
import { PROBLEMS } from './problems';

const TAGS = [
  { name: 'Jobs', description: 'Job definitions and their schedules' },
  { name: 'Runs', description: 'Executions of jobs and their delivery attempts' },
  { name: 'Dead letter', description: 'Runs whose attempts are exhausted' },
  { name: 'Pull queues', description: 'Your own workers claim the runs of `pull` targets' },
  { name: 'Schedules', description: 'Schedule maths' },
  { name: 'Signing secret', description: 'The secret that signs webhook deliveries' },
  { name: 'Limits', description: 'What one tenant may take of what all tenants share' },
  { name: 'Meta', description: 'Health and this document' },
];

const PARAM_DESCRIPTIONS: Record<string, string> = {
  id: 'Job id (job_...)',
  runId: 'Run id (run_...)',
  queue: 'Pull queue name',
};

function pathParams(path: string): z.ZodObject | undefined {
  const names = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1] as string);
  if (!names.length) return undefined;
  return z.object(
    Object.fromEntries(names.map((n) => [n, z.string().meta({ description: PARAM_DESCRIPTIONS[n] ?? n })])),
  );
}

function responsesOf(route: Route): ZodOpenApiResponsesObject {
  const out: ZodOpenApiResponsesObject = {};
  for (const [status, response] of Object.entries(route.responses)) out[status as `2${string}`] = response;
  const add = (status: keyof typeof PROBLEMS) => {
    out[String(status) as `4${string}`] ??= PROBLEMS[status];
  };
  if (route.query || route.body || route.method !== 'GET') add(400);
  if (route.scope) {
    add(401);
    add(403);
    add(429);
  }
  if (route.path.includes('{') || route.query?.shape.jobId) add(404);
  if (route.method === 'POST' || route.method === 'PATCH') {
    add(413);
    add(415);
  }
  add(500);
  add(503);
  return out;
}

function operationOf(route: Route): ZodOpenApiOperationObject {
  const path = pathParams(route.path);
  const requestParams = { ...(path ? { path } : {}), ...(route.query ? { query: route.query } : {}) };
  return {
    operationId: route.operationId,
    summary: route.summary,
    description: route.description ?? route.summary,
    tags: [route.tag],
    security: route.scope ? [{ apiKey: [route.scope] }] : [],
    ...(Object.keys(requestParams).length ? { requestParams } : {}),
    ...(route.body ? { requestBody: { required: true, content: { 'application/json': { schema: route.body } } } } : {}),
    ...(route.operationId === 'createJob' || route.operationId === 'createJobs'
      ? {
          parameters: [
            z
              .string()
              .max(255)
              .optional()
              .meta({
                param: { name: 'Idempotency-Key', in: 'header' },
                description: 'Same key + same body within 24 h = same job (jobs, for a batch)',
              }),
          ],
        }
      : {}),
    responses: responsesOf(route),
  };
}

export function buildOpenApiDocument(routes: Route[]): ReturnType<typeof createDocument> {
  const paths: ZodOpenApiPathsObject = {};
  for (const route of routes) {
    const item = paths[route.path] ?? {};
    item[route.method.toLowerCase() as 'get'] = operationOf(route);
    paths[route.path] = item;
  }
  return createDocument({
    openapi: '3.1.0',
    info: {
      title: 'Belfry API',
      version: '1.0.0',
      description:
        'Multi-tenant managed job scheduler. Errors are RFC 9457 problem+json; lists are cursor-paginated ' +
        '(`?limit=` default 50, max 500, `&cursor=`) and answer `{ data, nextCursor }`; timestamps are ISO 8601 UTC.',
      license: { name: 'Proprietary', url: 'https://belfry.dev/terms' },
    },
    servers: [{ url: '/', description: 'This Belfry deployment' }],
    tags: TAGS,
    security: [{ apiKey: [] }],
    paths,
    components: {
      securitySchemes: {
        apiKey: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'bfy_ + 43 base64url characters',
          description:
            'An API key. Scopes: jobs:read, jobs:write, runs:read, runs:write, admin (admin implies all; x:write implies x:read).',
        },
      },
    },
  });
}
