// The signed-in user: who they are, their workspaces (tenants), switching between them,
// creating another, accepting an invitation; and the public doors: sign-up, sign-up through
// an invitation, and the invitation preview.
import { TRPCError } from '@trpc/server';
import { z } from 'zod';
import { createWorkspace, SignUpInput, signUp, WorkspaceName } from '../../dashboard/accounts';
import {
  acceptInvitation,
  InvitationToken,
  previewInvitation,
  SignUpWithInvitationInput,
  signUpWithInvitation,
} from '../../dashboard/invitations';
import { pickMembership } from '../../dashboard/session';
import { throttleSignUp, UNKNOWN_ADDRESS } from '../../dashboard/throttle';
import { publicProcedure, router, signedInProcedure } from '../init';

export const accountRouter = router({
  me: signedInProcedure.query(({ ctx }) => {
    const active = pickMembership(ctx.session, ctx.requestedTenantId);
    return { user: ctx.user, memberships: ctx.session.memberships, active };
  }),

  switchTenant: signedInProcedure
    .input(z.strictObject({ tenantId: z.string().min(1).max(100) }))
    .mutation(({ ctx, input }) => {
      const membership = ctx.session.memberships.find((m) => m.tenantId === input.tenantId);
      if (!membership) throw new TRPCError({ code: 'NOT_FOUND', message: 'Workspace not found' });
      ctx.setActiveTenant(membership.tenantId);
      return membership;
    }),

  createWorkspace: signedInProcedure.input(z.strictObject({ name: WorkspaceName })).mutation(async ({ ctx, input }) => {
    const created = await createWorkspace(ctx.deps, ctx.user.id, input.name);
    ctx.setActiveTenant(created.tenantId);
    return created;
  }),

  acceptInvitation: signedInProcedure
    .input(z.strictObject({ token: InvitationToken }))
    .mutation(async ({ ctx, input }) => {
      const joined = await acceptInvitation(ctx.deps, ctx.user, input.token);
      ctx.setActiveTenant(joined.tenantId);
      return joined;
    }),

  signUp: publicProcedure.input(SignUpInput).mutation(async ({ ctx, input }) => {
    await throttleSignUp(ctx.deps, ctx.clientKey ?? UNKNOWN_ADDRESS);
    const created = await signUp(ctx.deps, input);
    ctx.setActiveTenant(created.tenantId);
    return { email: input.email };
  }),

  signUpWithInvitation: publicProcedure.input(SignUpWithInvitationInput).mutation(async ({ ctx, input }) => {
    await throttleSignUp(ctx.deps, ctx.clientKey ?? UNKNOWN_ADDRESS);
    const created = await signUpWithInvitation(ctx.deps, input);
    ctx.setActiveTenant(created.tenantId);
    return { email: created.email };
  }),

  invitation: publicProcedure
    .input(z.strictObject({ token: InvitationToken }))
    .query(({ ctx, input }) => previewInvitation(ctx.deps, input.token)),
});
