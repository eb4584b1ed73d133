import { useCallback, useMemo } from 'react';
import { keepPreviousData, useInfiniteQuery, useQuery, useQueryClient, type InfiniteData, type QueryKey } from '@tanstack/react-query';
import { errorMessage } from '../../../api/client';
import type { Page } from '../../../api/types';
import { queryClient } from '../../../query';

/**
 * The console's server state lives in the tab's QueryClient (web/src/query.tsx), under keys that
 * start with 'admin'. Its queries are never retried on their own (a failure is shown with 'Tentar
 * de novo', the person decides) and are dropped once no page shows them, so opening a page loads
 * it afresh, as a page of the console always has.
 */
queryClient.setQueryDefaults(['admin'], { retry: false, gcTime: 0 });

/** Query keys of the console, in one place (a mutation invalidates them by prefix). */
export const adminKeys = {
  dashboard: ['admin', 'dashboard'] as const,
  summary: ['admin', 'dashboard', 'summary'] as const,
  draws: ['admin', 'dashboard', 'draws'] as const,
  // Not under 'dashboard': a change on the dashboard reloads its summary and draws, not these.
  figures: ['admin', 'figures'] as const,
  drawInfoproducts: ['admin', 'draw-infoproducts'] as const,
  autopayRuns: (drawId: number) => ['admin', 'autopay-runs', drawId] as const,
  payments: ['admin', 'payments'] as const,
  heldDraws: ['admin', 'held-draws'] as const,
  participants: (drawId: number) => ['admin', 'participants', drawId] as const,
  winners: ['admin', 'winners'] as const,
  openBuyers: (drawId: number | null) => ['admin', 'open-buyers', drawId] as const,
  activeClients: ['admin', 'active-clients'] as const,
  users: ['admin', 'users'] as const,
  board: (drawId: number) => ['admin', 'board', drawId] as const,
  openDraw: ['admin', 'open-draw'] as const,
  audit: ['admin', 'audit'] as const,
  infoproducts: ['admin', 'infoproducts'] as const,
  ops: ['admin', 'ops'] as const,
  backups: ['admin', 'backups'] as const,
  mfa: ['admin', 'mfa'] as const,
};

/** 'Tentar de novo': the query starts over from its first state (skeleton included) and loads again. */
export function useRestart(queryKey: QueryKey) {
  const client = useQueryClient();
  const key = JSON.stringify(queryKey);
  // eslint-disable-next-line react-hooks/exhaustive-deps -- the key's value, not its identity
  return useCallback(() => void client.resetQueries({ queryKey, exact: true }), [client, key]);
}

/**
 * A paginated admin list read a page at a time with 'Carregar mais' (`limit`, `offset`, `hasMore`)
 * and a search text: the search is part of the key, so a new search loads its first page (with
 * `keepPrevious`, the last search's rows stay shown meanwhile); a failure keeps what was shown and
 * gives `error`, the text to show the person.
 */
export function useLoadMoreList<T>(
  key: QueryKey,
  load: (q: { search: string; offset: number; limit: number }, signal: AbortSignal) => Promise<Page<T>>,
  search: string,
  fallback: string,
  limit = 20,
  keepPrevious = false,
) {
  const client = useQueryClient();
  const queryKey = useMemo(() => [...key, { search, limit }], [key, search, limit]);
  const q = useInfiniteQuery({
    queryKey,
    queryFn: ({ pageParam, signal }) => load({ search, offset: pageParam, limit }, signal),
    initialPageParam: 0,
    getNextPageParam: (last, pages) => (last.hasMore ? pages.reduce((n, p) => n + p.items.length, 0) : undefined),
    placeholderData: keepPrevious ? keepPreviousData : undefined,
  });
  const items = useMemo(() => q.data?.pages.flatMap((p) => p.items) ?? [], [q.data]);
  const reload = useRestart(queryKey);
  /** Replaces one loaded item in place (after an edit). */
  const replace = useCallback(
    (match: (item: T) => boolean, next: T) =>
      client.setQueryData<InfiniteData<Page<T>, number>>(
        queryKey,
        (d) => d && { ...d, pages: d.pages.map((p) => ({ ...p, items: p.items.map((x) => (match(x) ? next : x)) })) },
      ),
    [client, queryKey],
  );
  const { fetchNextPage, refetch } = q;
  const loadMore = useCallback(() => void fetchNextPage(), [fetchNextPage]);
  /** 'Atualizar': the first page again (what was shown stays until it comes), not every page loaded. */
  const refresh = useCallback(() => {
    client.setQueryData<InfiniteData<Page<T>, number>>(
      queryKey,
      (d) => d && { pages: d.pages.slice(0, 1), pageParams: d.pageParams.slice(0, 1) },
    );
    return refetch();
  }, [client, queryKey, refetch]);
  return {
    items,
    hasMore: q.hasNextPage,
    loading: q.isPending && q.isFetching,
    /** Any page on its way (the first, the next, a refresh). */
    fetching: q.isFetching,
    loadingMore: q.isFetchingNextPage,
    error: q.error && !q.isFetching ? errorMessage(q.error, fallback) : null,
    loadMore,
    reload,
    refresh,
    replace,
  };
}

/**
 * One query whose last answer stays on screen while the next one loads (another page, another
 * filter: keepPreviousData) and through a failed refresh; `data` is null before the first answer.
 */
export function useKeptQuery<T>(queryKey: QueryKey, load: (signal: AbortSignal) => Promise<T>) {
  const q = useQuery({ queryKey, queryFn: ({ signal }) => load(signal), placeholderData: keepPreviousData });
  return { ...q, data: q.data ?? null, loading: q.isFetching };
}
