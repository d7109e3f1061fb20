// Alerts for the dashboard: channels (create, delete, send test), the tenant policy,
// incidents, and one job's alerting (its settings in effect and open incidents), over the
// same services as the REST API.
import { z } from 'zod';
import { jobAlerts } from '../../dashboard/job-alerts';
import { AlertChannelInput, AlertPolicyInput, IncidentsQuery } from '../../schemas/alerts';
import { JobIdInput } from '../../schemas/common';
import { createChannel, deleteChannel, listChannels, testChannel } from '../../services/alert-channels';
import { getPolicy, putPolicy } from '../../services/alert-policy';
import { listIncidents } from '../../services/incidents';
import { MAX_LIMIT } from '../../services/pagination';
import { router, tenantProcedure } from '../init';

const ById = z.strictObject({ id: z.string().min(1).max(100) });

export const alertsRouter = router({
  // A tenant has at most 100 channels: one page holds them all.
  channels: tenantProcedure.query(({ ctx }) => listChannels(ctx.deps, ctx.actor, { limit: MAX_LIMIT })),
  createChannel: tenantProcedure
    .input(AlertChannelInput)
    .mutation(({ ctx, input }) => createChannel(ctx.deps, ctx.actor, input)),
  deleteChannel: tenantProcedure.input(ById).mutation(async ({ ctx, input }) => {
    await deleteChannel(ctx.deps, ctx.actor, input.id);
    return { id: input.id };
  }),
  testChannel: tenantProcedure.input(ById).mutation(({ ctx, input }) => testChannel(ctx.deps, ctx.actor, input.id)),
  policy: tenantProcedure.query(({ ctx }) => getPolicy(ctx.deps, ctx.actor)),
  putPolicy: tenantProcedure
    .input(AlertPolicyInput)
    .mutation(({ ctx, input }) => putPolicy(ctx.deps, ctx.actor, input)),
  incidents: tenantProcedure
    .input(
      IncidentsQuery.pick({ status: true, jobId: true, cursor: true }).extend({
        limit: z.int().min(1).max(100).optional(),
      }),
    )
    .query(({ ctx, input }) => listIncidents(ctx.deps, ctx.actor, input)),
  forJob: tenantProcedure
    .input(z.strictObject({ jobId: JobIdInput }))
    .query(({ ctx, input }) => jobAlerts(ctx.deps, ctx.actor, input.jobId)),
});
