// /api/v1/jobs: thin handlers over the job and run services.
import { z } from 'zod';
import { PROBLEMS } from '../../openapi/problems';
import { JobBatchInput, JobCreateInput, JobPatchInput } from '../../schemas/job-input';
import { ListJobsQuery, ListRunsQuery } from '../../schemas/queries';
import { Job, JobBatch, JobPage, Run, RunPage } from '../../schemas/resources';
import { createJob, createJobs, getJob, listJobs } from '../../services/jobs';
import { deleteJob, patchJob, pauseJob, resumeJob } from '../../services/job-changes';
import { listJobRuns, triggerJob } from '../../services/runs';
import { json, noContent } from '../response';
import { route } from '../route';

const jobOk = { description: 'The job', content: { 'application/json': { schema: Job } } };
const location = z.string().meta({ description: 'URL of the created resource' });
/** A batch's body cap: 1,000 jobs of about 8 KiB each; larger payloads go one by one. */
const BATCH_BODY_BYTES = 8 * 1024 * 1024;

export const jobRoutes = [
  route({
    method: 'POST',
    path: '/api/v1/jobs',
    operationId: 'createJob',
    summary: 'Create a job',
    description:
      'Honours an `Idempotency-Key` header: the same key with the same body within 24 hours answers the ' +
      'job the first request created (201 again, with `Idempotent-Replayed: true`); the same key with a ' +
      'different body answers 422.',
    tag: 'Jobs',
    scope: 'jobs:write',
    body: JobCreateInput,
    responses: {
      201: {
        description: 'Created (or replayed for a repeated Idempotency-Key)',
        headers: z.object({
          Location: location,
          'Idempotent-Replayed': z.enum(['true']).optional().meta({ description: 'Present when replayed' }),
        }),
        content: { 'application/json': { schema: Job } },
      },
      409: PROBLEMS[409],
      422: PROBLEMS[422],
    },
    async handle({ deps, actor, body, request }) {
      const key = request.headers.get('idempotency-key');
      const { job, created } = await createJob(deps, actor, body, { idempotencyKey: key ?? undefined });
      return json(201, job, {
        location: `/api/v1/jobs/${job.id}`,
        ...(created ? {} : { 'idempotent-replayed': 'true' }),
      });
    },
  }),
  route({
    method: 'POST',
    path: '/api/v1/jobs/batch',
    operationId: 'createJobs',
    summary: 'Create up to 1,000 jobs at once',
    description:
      'All or nothing: one invalid job refuses the whole batch (400, each error naming its item, e.g. ' +
      '`jobs.17.schedule.expression`) and nothing is created. Answers the jobs in the order given. The body ' +
      `may be up to ${BATCH_BODY_BYTES / 1024 / 1024} MiB; each job's own limits are those of POST /api/v1/jobs. ` +
      'Counts as one request per 100 jobs against the rate limit. Honours an `Idempotency-Key` header as ' +
      'POST /api/v1/jobs does: the same key with the same body within 24 hours answers the same jobs.',
    tag: 'Jobs',
    scope: 'jobs:write',
    body: JobBatchInput,
    maxBodyBytes: BATCH_BODY_BYTES,
    cost: (body) => Math.ceil(body.jobs.length / 100),
    responses: {
      201: {
        description: 'Created (or replayed for a repeated Idempotency-Key)',
        headers: z.object({
          'Idempotent-Replayed': z.enum(['true']).optional().meta({ description: 'Present when replayed' }),
        }),
        content: { 'application/json': { schema: JobBatch } },
      },
      409: PROBLEMS[409],
      422: PROBLEMS[422],
    },
    async handle({ deps, actor, body, request }) {
      const key = request.headers.get('idempotency-key');
      const { jobs, created } = await createJobs(deps, actor, body.jobs, { idempotencyKey: key ?? undefined });
      return json(201, { data: jobs }, created ? {} : { 'idempotent-replayed': 'true' });
    },
  }),
  route({
    method: 'GET',
    path: '/api/v1/jobs',
    operationId: 'listJobs',
    summary: 'List jobs, newest first',
    tag: 'Jobs',
    scope: 'jobs:read',
    query: ListJobsQuery,
    responses: { 200: { description: 'A page of jobs', content: { 'application/json': { schema: JobPage } } } },
    async handle({ deps, actor, query }) {
      return json(200, await listJobs(deps, actor, query));
    },
  }),
  route({
    method: 'GET',
    path: '/api/v1/jobs/{id}',
    operationId: 'getJob',
    summary: 'Get a job',
    tag: 'Jobs',
    scope: 'jobs:read',
    responses: { 200: jobOk },
    async handle({ deps, actor, params }) {
      return json(200, await getJob(deps, actor, params.id as string));
    },
  }),
  route({
    method: 'PATCH',
    path: '/api/v1/jobs/{id}',
    operationId: 'updateJob',
    summary: 'Change a job',
    description:
      'Any writable field. `retry` merges into the current policy; other fields replace. A changed schedule ' +
      'restarts from now and cancels occurrences materialized under the old one.',
    tag: 'Jobs',
    scope: 'jobs:write',
    body: JobPatchInput,
    responses: { 200: jobOk, 422: PROBLEMS[422] },
    async handle({ deps, actor, params, body }) {
      return json(200, await patchJob(deps, actor, params.id as string, body));
    },
  }),
  route({
    method: 'DELETE',
    path: '/api/v1/jobs/{id}',
    operationId: 'deleteJob',
    summary: 'Delete a job',
    description: 'Pending runs are cancelled; run history is kept.',
    tag: 'Jobs',
    scope: 'jobs:write',
    responses: { 204: { description: 'Deleted' } },
    async handle({ deps, actor, params }) {
      await deleteJob(deps, actor, params.id as string);
      return noContent();
    },
  }),
  route({
    method: 'POST',
    path: '/api/v1/jobs/{id}/pause',
    operationId: 'pauseJob',
    summary: 'Pause a job',
    description: 'Stops scheduling and cancels runs that have not started. Pausing a paused job changes nothing.',
    tag: 'Jobs',
    scope: 'jobs:write',
    responses: { 200: jobOk, 409: PROBLEMS[409] },
    async handle({ deps, actor, params }) {
      return json(200, await pauseJob(deps, actor, params.id as string));
    },
  }),
  route({
    method: 'POST',
    path: '/api/v1/jobs/{id}/resume',
    operationId: 'resumeJob',
    summary: 'Resume a paused job',
    tag: 'Jobs',
    scope: 'jobs:write',
    responses: { 200: jobOk, 409: PROBLEMS[409], 422: PROBLEMS[422] },
    async handle({ deps, actor, params }) {
      return json(200, await resumeJob(deps, actor, params.id as string));
    },
  }),
  route({
    method: 'POST',
    path: '/api/v1/jobs/{id}/trigger',
    operationId: 'triggerJob',
    summary: 'Run a job now, once, outside its schedule',
    tag: 'Runs',
    scope: 'runs:write',
    responses: {
      201: {
        description: 'The new run',
        headers: z.object({ Location: location }),
        content: { 'application/json': { schema: Run } },
      },
    },
    async handle({ deps, actor, params }) {
      const run = await triggerJob(deps, actor, params.id as string);
      return json(201, run, { location: `/api/v1/runs/${run.id}` });
    },
  }),
  route({
    method: 'GET',
    path: '/api/v1/jobs/{id}/runs',
    operationId: 'listJobRuns',
    summary: "List a job's runs, newest first",
    tag: 'Runs',
    scope: 'runs:read',
    query: ListRunsQuery,
    responses: { 200: { description: 'A page of runs', content: { 'application/json': { schema: RunPage } } } },
    async handle({ deps, actor, params, query }) {
      return json(200, await listJobRuns(deps, actor, params.id as string, query));
    },
  }),
];
