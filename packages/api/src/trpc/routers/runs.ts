// Runs: one run with every attempt, cancel, replay; the dead-letter queue; the schedule
// preview the job form shows as you type.
import { z } from 'zod';
import {
  countDeadRuns,
  DeadLetterFilter,
  DeadLetterListInput,
  deadLetterJobs,
  discardDeadRuns,
  listDeadRuns,
  RunIdsInput,
  replayMatching,
} from '../../dashboard/dead-letter';
import { PreviewInput, previewWithNotes } from '../../dashboard/preview';
import { runDetail } from '../../dashboard/run-detail';
import { RunIdInput } from '../../schemas/common';
import { replayDeadLetter } from '../../services/dead-letter';
import { cancelRun, replayRun } from '../../services/runs';
import { router, tenantProcedure } from '../init';

const ById = z.strictObject({ id: RunIdInput });

export const runsRouter = router({
  get: tenantProcedure.input(ById).query(({ ctx, input }) => runDetail(ctx.deps, ctx.actor, input.id)),
  cancel: tenantProcedure.input(ById).mutation(({ ctx, input }) => cancelRun(ctx.deps, ctx.actor, input.id)),
  replay: tenantProcedure.input(ById).mutation(({ ctx, input }) => replayRun(ctx.deps, ctx.actor, input.id)),
});

export const deadLetterRouter = router({
  list: tenantProcedure.input(DeadLetterListInput).query(({ ctx, input }) => listDeadRuns(ctx.deps, ctx.actor, input)),
  jobs: tenantProcedure.query(({ ctx }) => deadLetterJobs(ctx.deps, ctx.actor)),
  count: tenantProcedure.input(DeadLetterFilter).query(({ ctx, input }) => countDeadRuns(ctx.deps, ctx.actor, input)),
  replay: tenantProcedure.input(RunIdsInput).mutation(async ({ ctx, input }) => {
    const result = await replayDeadLetter(ctx.deps, ctx.actor, { runIds: input.runIds });
    return { replayed: 'replayed' in result ? result.replayed : 0 };
  }),
  replayMatching: tenantProcedure
    .input(DeadLetterFilter)
    .mutation(({ ctx, input }) => replayMatching(ctx.deps, ctx.actor, input)),
  discard: tenantProcedure
    .input(RunIdsInput)
    .mutation(({ ctx, input }) => discardDeadRuns(ctx.deps, ctx.actor, input.runIds)),
});

export const scheduleRouter = router({
  preview: tenantProcedure.input(PreviewInput).query(({ ctx, input }) => previewWithNotes(ctx.deps, ctx.actor, input)),
});
