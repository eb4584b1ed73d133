import { createContext, useContext, useState, type ReactNode } from 'react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { ApiError } from './api/client';
import { SeedContext } from './ssr/seeds';

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

/** The server render's own client, one per request (web/src/entry-server.tsx); the tab's one otherwise. */
export const RequestQueryClient = createContext<QueryClient | null>(null);

export function QueryScope({ children }: { children: ReactNode }) {
  const client = useContext(RequestQueryClient) ?? queryClient;
  // A server-rendered page's queries (ssr/seeds.tsx) start from the data it was rendered with,
  // on the server and when the browser hydrates it; a query already in the cache keeps its data.
  const seeds = useContext(SeedContext);
  useState(() => {
    for (const q of seeds?.queries ?? []) if (client.getQueryData(q.key) === undefined) client.setQueryData(q.key, q.data);
  });
  return <QueryClientProvider client={client}>{children}</QueryClientProvider>;
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
