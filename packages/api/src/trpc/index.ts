// The dashboard's tRPC surface: the router (and its type for the client), the context the
// web app builds per request, and the error helpers its route handler logs with.
export { type AppRouter, appRouter } from './router';
export { createDashboardContext, type DashboardContext, type DashboardContextOptions } from './context';
export { createCallerFactory, NO_WORKSPACE } from './init';
export { fieldErrorsOf, publicMessage, toTRPCError } from './errors';
export { handleTrpcRequest, TRPC_MAX_BATCH, TRPC_MAX_BODY_BYTES, type TrpcHttpOptions } from './http';
