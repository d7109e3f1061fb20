'use client';
// The dashboard's typed tRPC hooks (TanStack Query integration). Only the router's type
// crosses into the browser bundle.
import type { AppRouter } from '@belfry/api';
import { createTRPCContext } from '@trpc/tanstack-react-query';

export const { TRPCProvider, useTRPC, useTRPCClient } = createTRPCContext<AppRouter>();
