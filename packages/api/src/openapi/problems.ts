// The documented error responses, registered once as components (each has an `id`) and
// referenced by every operation that can answer them.
import type { ZodOpenApiResponseObject } from 'zod-openapi';
import { z } from 'zod';
import { ProblemSchema } from '../schemas/common';

function problem(
  id: string,
  description: string,
  headers?: ZodOpenApiResponseObject['headers'],
): ZodOpenApiResponseObject {
  return {
    id,
    description,
    content: { 'application/problem+json': { schema: ProblemSchema } },
    ...(headers ? { headers } : {}),
  };
}

export const PROBLEMS = {
  400: problem('BadRequest', 'The request is malformed or a field is invalid (see `errors`)'),
  401: problem(
    'Unauthorized',
    'Missing, malformed, unknown, revoked or expired API key',
    z.object({ 'WWW-Authenticate': z.string().meta({ example: 'Bearer realm="belfry"' }) }),
  ),
  403: problem('Forbidden', 'The API key lacks the scope this operation needs'),
  404: problem('NotFound', 'No such object in your tenant'),
  405: problem('MethodNotAllowed', 'The path exists but not with this method', z.object({ Allow: z.string() })),
  409: problem('Conflict', 'The object is not in a state that allows this'),
  413: problem('ContentTooLarge', 'The request body exceeds 512 KiB'),
  415: problem('UnsupportedMediaType', 'The request body is not application/json'),
  422: problem(
    'UnprocessableContent',
    "The change would pass one of the tenant's limits (`type` ending in `/quota-exceeded`, with `quota`, `limit` and `current`; see GET /api/v1/limits), or the Idempotency-Key was used with a different request body",
  ),
  429: problem(
    'TooManyRequests',
    "The API key's rate limit is exhausted",
    z.object({ 'Retry-After': z.int().min(1).meta({ description: 'Seconds until a request may succeed' }) }),
  ),
  500: problem('InternalServerError', 'Something went wrong on our side'),
  503: problem('ServiceUnavailable', 'The database cannot be reached'),
} as const;
