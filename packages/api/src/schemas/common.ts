// Shapes shared by every resource: timestamps, ids, list pages, query parameters and the
// problem+json error body.
import { z } from 'zod';
import 'zod-openapi';
import { MAX_LIMIT } from '../services/pagination';

export const Timestamp = z.iso
  .datetime()
  .meta({ description: 'ISO 8601 UTC timestamp', example: '2026-12-01T07:00:00.000Z' });
export const NullableTimestamp = Timestamp.nullable();

export const JobId = z.string().meta({ description: 'Job id', example: 'job_01KB3Y8J2Q7Z9V4N6M5X0C1R2T' });
export const RunId = z.string().meta({ description: 'Run id', example: 'run_01KB3Y8J2Q7Z9V4N6M5X0C1R2T' });

const RUN_ID_SHAPE = /^run_[0-7][0-9A-HJKMNP-TV-Z]{25}$/;
const JOB_ID_SHAPE = /^job_[0-7][0-9A-HJKMNP-TV-Z]{25}$/;
export const RunIdInput = z.string().regex(RUN_ID_SHAPE, { error: 'is not a run id' });
export const JobIdInput = z.string().regex(JOB_ID_SHAPE, { error: 'is not a job id' });

/** ISO 8601 with an explicit zone ('Z' or an offset), turned into a Date. */
export const InstantInput = z.iso
  .datetime({ offset: true, error: 'must be an ISO 8601 date-time with a time zone, e.g. 2026-12-01T07:00:00Z' })
  .transform((s) => new Date(s))
  .refine((d) => d.getTime() >= 0, { error: 'must be after 1970-01-01' })
  .meta({ override: { type: 'string', format: 'date-time' } });

/** Documents a digits-only query parameter as the integer it is parsed into. */
export function integerParam(bounds: { minimum: number; maximum?: number; default?: number }) {
  return ({ jsonSchema }: { jsonSchema: Record<string, unknown> }) => {
    for (const key of Object.keys(jsonSchema)) if (key !== 'description') delete jsonSchema[key];
    Object.assign(jsonSchema, { type: 'integer' }, bounds);
  };
}

export const LimitParam = z
  .string()
  .regex(/^\d{1,6}$/, { error: `must be an integer from 1 to ${MAX_LIMIT}` })
  .transform(Number)
  .pipe(
    z
      .int()
      .min(1, { error: `must be an integer from 1 to ${MAX_LIMIT}` })
      .max(MAX_LIMIT, { error: `must be an integer from 1 to ${MAX_LIMIT}` }),
  )
  .meta({
    description: `Page size (default 50, at most ${MAX_LIMIT})`,
    override: integerParam({ minimum: 1, maximum: MAX_LIMIT, default: 50 }),
  });

export const CursorParam = z
  .string()
  .min(1)
  .max(400)
  .meta({ description: 'Opaque cursor: the nextCursor of the previous page' });

/** The page parameters of every list's query string: spread into a list's own filters. */
export const PAGE_PARAMS = { limit: LimitParam.optional(), cursor: CursorParam.optional() };

/** The query string of a list that has no filters. */
export const PageQuery = z.strictObject(PAGE_PARAMS);

export const FieldErrorSchema = z.object({ path: z.string(), message: z.string() }).meta({ id: 'FieldError' });

export const ProblemSchema = z
  .object({
    type: z.string().meta({ example: 'https://belfry.dev/problems/validation' }),
    title: z.string(),
    status: z.int(),
    detail: z.string(),
    errors: z.array(FieldErrorSchema).optional(),
    quota: z
      .string()
      .optional()
      .meta({ description: 'quota-exceeded only: the limit passed, as named in GET /api/v1/limits (e.g. maxJobs)' }),
    limit: z.number().optional().meta({ description: "quota-exceeded only: the limit's value" }),
    current: z.number().optional().meta({ description: 'quota-exceeded only: the usage before the refused change' }),
  })
  .meta({ id: 'Problem', description: 'RFC 9457 problem details' });

export function pageOf<T extends z.ZodType>(item: T, id: string) {
  return z
    .strictObject({
      data: z.array(item),
      nextCursor: z
        .string()
        .nullable()
        .meta({ description: 'Pass as ?cursor= for the next page; null on the last page' }),
    })
    .meta({ id });
}

/** The body of action endpoints (pause, trigger, ...): nothing, or an empty object. */
export const EmptyBody = z.strictObject({}).meta({ id: 'EmptyBody' });
