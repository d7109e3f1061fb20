'use client';
// React Query + tRPC for the whole app. Live pages poll (refetchInterval) rather than
// subscribe; 4xx answers are not retried, and a lost session sends the user to sign in.
import type { AppRouter } from '@belfry/api';
import { MutationCache, QueryCache, QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { createTRPCClient, httpBatchLink, TRPCClientError } from '@trpc/client';
import { signOut } from 'next-auth/react';
import { type ReactNode, useState } from 'react';
import { ToastProvider } from '@/components/toast';
import { TRPCProvider } from './trpc';

function isUnauthorized(err: unknown): boolean {
  return err instanceof TRPCClientError && err.data?.code === 'UNAUTHORIZED';
}

let signingOut = false;
function onError(err: unknown): void {
  if (isUnauthorized(err) && !signingOut) {
    signingOut = true;
    // Clears the session cookie too, so the sign-in page does not bounce back here.
    void signOut({ callbackUrl: `/signin?callbackUrl=${encodeURIComponent(window.location.pathname)}` });
  }
}

function makeQueryClient(): QueryClient {
  return new QueryClient({
    queryCache: new QueryCache({ onError }),
    mutationCache: new MutationCache({ onError }),
    defaultOptions: {
      queries: {
        staleTime: 1_000,
        retry: (count, err) => {
          const status = err instanceof TRPCClientError ? (err.data?.httpStatus as number | undefined) : undefined;
          return (status === undefined || status >= 500) && count < 2;
        },
      },
    },
  });
}

export function Providers({ children }: { children: ReactNode }) {
  const [queryClient] = useState(makeQueryClient);
  const [trpcClient] = useState(() =>
    // maxItems: the server's TRPC_MAX_BATCH (importing it would pull @belfry/api into the bundle).
    createTRPCClient<AppRouter>({ links: [httpBatchLink({ url: '/api/trpc', maxURLLength: 4000, maxItems: 20 })] }),
  );
  return (
    <QueryClientProvider client={queryClient}>
      <TRPCProvider trpcClient={trpcClient} queryClient={queryClient}>
        <ToastProvider>{children}</ToastProvider>
      </TRPCProvider>
    </QueryClientProvider>
  );
}
