// Tenant settings: API keys, the webhook signing secret, members and invitations, and the
// engine cluster's status.
import { z } from 'zod';
import { clusterOverview } from '../../dashboard/cluster';
import { createInvitation, InviteInput, listInvitations, revokeInvitation } from '../../dashboard/invitations';
import {
  ChangeRoleInput,
  changeMemberRole,
  listMembers,
  RemoveMemberInput,
  removeMember,
} from '../../dashboard/members';
import { ApiKeyCreateInput, createApiKey, listApiKeys, revokeApiKey } from '../../services/api-keys';
import { DEFAULT_LIMIT, MAX_LIMIT } from '../../services/pagination';
import { listPullQueues } from '../../services/pull-queues';
import { getLimits } from '../../services/limits';
import { readSigningSecret, revokePreviousSigningSecret, rotateSigningSecret } from '../../services/signing-secrets';
import { router, tenantProcedure } from '../init';

const ById = z.strictObject({ id: z.string().min(1).max(100) });
// The dashboard's Queues page, a page at a time like GET /api/v1/queues.
const QueuesPageInput = z.strictObject({
  limit: z.int().min(1).max(MAX_LIMIT).default(DEFAULT_LIMIT),
  cursor: z.string().min(1).max(400).optional(),
});

export const apiKeysRouter = router({
  list: tenantProcedure.query(({ ctx }) => listApiKeys(ctx.deps, ctx.actor)),
  create: tenantProcedure
    .input(ApiKeyCreateInput)
    .mutation(({ ctx, input }) => createApiKey(ctx.deps, ctx.actor, input)),
  revoke: tenantProcedure.input(ById).mutation(({ ctx, input }) => revokeApiKey(ctx.deps, ctx.actor, input.id)),
});

export const signingSecretRouter = router({
  get: tenantProcedure.query(({ ctx }) => readSigningSecret(ctx.deps, ctx.actor)),
  rotate: tenantProcedure.mutation(({ ctx }) => rotateSigningSecret(ctx.deps, ctx.actor)),
  revokePrevious: tenantProcedure.mutation(({ ctx }) => revokePreviousSigningSecret(ctx.deps, ctx.actor)),
});

export const membersRouter = router({
  list: tenantProcedure.query(({ ctx }) => listMembers(ctx.deps, ctx.actor)),
  changeRole: tenantProcedure
    .input(ChangeRoleInput)
    .mutation(({ ctx, input }) => changeMemberRole(ctx.deps, ctx.actor, input)),
  remove: tenantProcedure.input(RemoveMemberInput).mutation(async ({ ctx, input }) => {
    const { revokedApiKeys } = await removeMember(ctx.deps, ctx.actor, input.userId);
    return { userId: input.userId, revokedApiKeys };
  }),
  invite: tenantProcedure.input(InviteInput).mutation(({ ctx, input }) => createInvitation(ctx.deps, ctx.actor, input)),
  invitations: tenantProcedure.query(({ ctx }) => listInvitations(ctx.deps, ctx.actor)),
  revokeInvitation: tenantProcedure.input(ById).mutation(async ({ ctx, input }) => {
    await revokeInvitation(ctx.deps, ctx.actor, input.id);
    return { id: input.id };
  }),
});

export const clusterRouter = router({
  overview: tenantProcedure.query(({ ctx }) =>
    clusterOverview(ctx.deps, ctx.actor, { operator: ctx.session.user.operator }),
  ),
});

export const queuesRouter = router({
  list: tenantProcedure.input(QueuesPageInput).query(({ ctx, input }) => listPullQueues(ctx.deps, ctx.actor, input)),
});

export const limitsRouter = router({
  get: tenantProcedure.query(({ ctx }) => getLimits(ctx.deps, ctx.actor)),
});
