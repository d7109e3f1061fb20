'use client';
// The dashboard's typed tRPC hooks (TanStack Query integration). Only the router's type
// crosses into the browser bundle.
import type { AppRouter } from '@belfry/api';
import type { inferRouterOutputs } from '@trpc/server';
import { createTRPCContext } from '@trpc/tanstack-react-query';

export const { TRPCProvider, useTRPC, useTRPCClient } = createTRPCContext<AppRouter>();

/** What each procedure answers, e.g. `Outputs['jobs']['get']` (the dashboard's views of API objects). */
export type Outputs = inferRouterOutputs<AppRouter>;
