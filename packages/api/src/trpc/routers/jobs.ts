// Jobs: the table, one job, create / change / pause / resume / delete / run now, a job's
// runs and its run-history timeline. Inputs are the REST API's own schemas, so field
// errors carry the same paths (schedule.expression, target.url, ...).
import { z } from 'zod';
import { JobsTableInput, jobsTable } from '../../dashboard/jobs';
import { withNextDue } from '../../dashboard/preview';
import { jobTimeline, TimelineInput } from '../../dashboard/timeline';
import { JobIdInput } from '../../schemas/common';
import { JobCreateInput, JobPatchInput } from '../../schemas/job-input';
import { RUN_STATUSES } from '@belfry/core';
import { deleteJob, patchJob, pauseJob, resumeJob } from '../../services/job-changes';
import { createJob, getJob } from '../../services/jobs';
import { listJobRuns, triggerJob } from '../../services/runs';
import { router, tenantProcedure } from '../init';

const ById = z.strictObject({ id: JobIdInput });

export const jobsRouter = router({
  list: tenantProcedure.input(JobsTableInput).query(({ ctx, input }) => jobsTable(ctx.deps, ctx.actor, input)),

  get: tenantProcedure
    .input(ById)
    .query(async ({ ctx, input }) => withNextDue(await getJob(ctx.deps, ctx.actor, input.id))),

  create: tenantProcedure
    .input(JobCreateInput)
    .mutation(async ({ ctx, input }) => (await createJob(ctx.deps, ctx.actor, input)).job),

  update: tenantProcedure
    .input(JobPatchInput.extend({ id: JobIdInput }))
    .mutation(({ ctx, input: { id, ...patch } }) => patchJob(ctx.deps, ctx.actor, id, patch)),

  pause: tenantProcedure.input(ById).mutation(({ ctx, input }) => pauseJob(ctx.deps, ctx.actor, input.id)),

  resume: tenantProcedure.input(ById).mutation(({ ctx, input }) => resumeJob(ctx.deps, ctx.actor, input.id)),

  delete: tenantProcedure.input(ById).mutation(async ({ ctx, input }) => {
    await deleteJob(ctx.deps, ctx.actor, input.id);
    return { id: input.id };
  }),

  trigger: tenantProcedure.input(ById).mutation(({ ctx, input }) => triggerJob(ctx.deps, ctx.actor, input.id)),

  runs: tenantProcedure
    .input(
      z.strictObject({
        jobId: JobIdInput,
        status: z.enum(RUN_STATUSES).optional(),
        limit: z.int().min(1).max(200).default(25),
        cursor: z.string().min(1).max(400).optional(),
      }),
    )
    .query(({ ctx, input: { jobId, ...query } }) => listJobRuns(ctx.deps, ctx.actor, jobId, query)),

  timeline: tenantProcedure.input(TimelineInput).query(({ ctx, input }) => jobTimeline(ctx.deps, ctx.actor, input)),
});
