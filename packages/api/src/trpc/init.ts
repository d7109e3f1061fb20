// tRPC for the dashboard: one error mapping for every procedure, and three kinds of
// procedure: public (sign-up, invitation preview), signed in (a user, any tenant), and
// tenant (a user acting in their active tenant, as an Actor the domain services authorise).
import { initTRPC, TRPCError } from '@trpc/server';
import { AppError } from '../errors';
import { pickMembership, userActor } from '../dashboard/session';
import type { DashboardContext } from './context';
import { fieldErrorsOf, publicMessage, toTRPCError } from './errors';
import { type CallIds, writeCallLine } from './request-log';

const t = initTRPC.context<DashboardContext>().create({
  errorFormatter({ shape, error }) {
    return {
      ...shape,
      message: publicMessage(error),
      data: {
        code: shape.data.code,
        httpStatus: shape.data.httpStatus,
        path: shape.data.path,
        fieldErrors: fieldErrorsOf(error),
      },
    };
  },
});

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;

// Outermost, so its line has the status the client gets (after mapErrors) and the call's whole
// duration; later middlewares add the ids they learn to `callIds`.
const logCall = t.middleware(async ({ ctx, path, type, next }) => {
  const startedAt = Date.now();
  const callIds: CallIds = ctx.userId ? { userId: ctx.userId } : {};
  const result = await next({ ctx: { callIds } });
  writeCallLine(ctx.deps.log, { path, type, startedAt, error: result.ok ? undefined : result.error, ids: callIds });
  return result;
});

// First after logging, so it sees failures from input parsing and from the services alike.
const mapErrors = t.middleware(async ({ next }) => {
  const result = await next();
  if (!result.ok && result.error.cause instanceof AppError) throw toTRPCError(result.error.cause);
  return result;
});

export const publicProcedure = t.procedure.use(logCall).use(mapErrors);

export const signedInProcedure = publicProcedure.use(async ({ ctx, next }) => {
  const session = await ctx.session();
  if (!session) throw new TRPCError({ code: 'UNAUTHORIZED', message: 'Sign in to continue' });
  return next({ ctx: { session, user: session.user } });
});

export const NO_WORKSPACE = 'You are not a member of any workspace yet';

export const tenantProcedure = signedInProcedure.use(async ({ ctx, next }) => {
  const membership = pickMembership(ctx.session, ctx.requestedTenantId);
  if (!membership) throw new TRPCError({ code: 'PRECONDITION_FAILED', message: NO_WORKSPACE });
  ctx.callIds.tenantId = membership.tenantId;
  return next({ ctx: { membership, actor: userActor(ctx.session, membership) } });
});
