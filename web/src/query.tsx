import type { ReactNode } from 'react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { ApiError } from './api/client';

/**
 * Server state of the store's pages (/numeros, /conta, the purchase flow): one QueryClient for
 * the whole tab, so answers are shared and deduplicated between them (the board /numeros polls is
 * the one the purchase flow invalidates). Loaded with the pages, never by the home page's first
 * visit (the provider lives in lazily loaded chunks: AntdOutlet and the purchase flow).
 */
export const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      // A 4xx answer is the answer (not found, signed out, forbidden): shown at once, not retried.
      retry: (failures, err) => failures < 2 && !(err instanceof ApiError && err.status >= 400 && err.status < 500),
      retryDelay: (n) => Math.min(4000, 500 * 2 ** n),
      refetchOnWindowFocus: false,
      staleTime: 0,
    },
  },
});

export function QueryScope({ children }: { children: ReactNode }) {
  return <QueryClientProvider client={queryClient}>{children}</QueryClientProvider>;
}

/** Query keys, in one place (invalidation after a mutation names them). */
export const qk = {
  config: ['config'] as const,
  draw: (id: number) => ['draw', id] as const,
  drawId: (key: string) => ['draw-id', key] as const,
  board: (drawId: number) => ['board', drawId] as const,
  allowance: (drawId: number) => ['allowance', drawId] as const,
  myReservations: (drawId: number) => ['my-reservations', drawId] as const,
  closedDraws: ['closed-draws'] as const,
  participations: ['participations'] as const,
  coupon: ['coupon'] as const,
};
