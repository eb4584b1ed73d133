/**
 * Data hooks of /numeros (storefront spec §4 "Number board", §7 calls), on @tanstack/react-query:
 * it loads, retries, deduplicates, polls the board, drops the answers of a draw no longer on
 * screen (each draw is its own key) and keeps the last board while a reload fails. All HTTP goes
 * through api/client.
 */
import { useCallback } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ApiError } from '../../../api/client';
import type { Draw, OpenDrawAnswer, PublicConfig } from '../../../api/types';
import { useLiveDraws, type LiveEvent } from '../../../live/useLiveDraws';
import { qk } from '../../../query';
import { ANONYMOUS_ALLOWANCE, BOARD_POLL_MS, type Allowance, type Board, type DrawSource, type MyReservation } from '../board';

export interface Loadable<T> {
  data: T | null;
  error: unknown;
  loading: boolean;
  reload(): void;
}

/** One query as the page reads it: null data while loading or failed; `reload` refetches. */
function useLoad<T>(
  key: readonly unknown[] | null,
  fn: (signal: AbortSignal) => Promise<T>,
  opts: { keepOnError?: boolean } = {},
): Loadable<T> {
  const q = useQuery({
    queryKey: key ?? ['idle'],
    queryFn: ({ signal }) => fn(signal),
    enabled: key !== null,
  });
  const { refetch } = q;
  const reload = useCallback(() => void refetch(), [refetch]);
  if (key === null) return { data: null, error: null, loading: false, reload };
  const failed = q.isError && !opts.keepOnError;
  return {
    data: failed ? null : ((q.data as T | undefined) ?? null),
    error: q.error ?? null,
    loading: q.isPending || (q.isFetching && q.data === undefined),
    reload,
  };
}

/** GET /api/config: current draw and the per-selection maximum. */
export function usePublicConfig(): Loadable<PublicConfig> {
  return useLoad(qk.config, (signal) => api.get<PublicConfig>('/config', { signal }));
}

/**
 * The draw to show (storefront spec §4): the id from the navigation state; else the open draw of the product
 * the purchase flow handed over (opened on demand when signed in); else the config's current draw.
 * `data` is null when there is no open draw at all.
 */
export function useDrawId(
  source: DrawSource,
  config: PublicConfig | null,
  configError: unknown,
  session: { signedIn: boolean; loading: boolean },
) {
  const signedIn = session.signedIn;
  const key = source.drawId
    ? `draw:${source.drawId}`
    : source.product
      ? session.loading
        ? null // whether to open a draw for the product depends on the session
        : `product:${source.product}:${signedIn ? 1 : 0}`
      : config
        ? `config:${config.current_draw_id ?? config.draw_id ?? ''}`
        : null;
  const loaded = useLoad<number | null>(key === null ? null : qk.drawId(key), async (signal) => {
    if (source.drawId) return source.drawId;
    if (source.product) {
      const p = encodeURIComponent(source.product);
      const { draw } = await api.get<OpenDrawAnswer>(`/infoproducts/${p}/open-draw`, { signal });
      if (draw.id != null) return draw.id;
      if (!signedIn) return null;
      const opened = await api.post<{ id?: number; draw_id?: number }>(`/infoproducts/${p}/ensure-open-draw`, undefined, { signal });
      return opened.draw_id ?? opened.id ?? null;
    }
    return config?.current_draw_id ?? config?.draw_id ?? null;
  });
  if (key === null) {
    const error = source.product ? null : configError;
    return { ...loaded, loading: !error, error };
  }
  return loaded;
}

type DrawRef = { id?: number | null; draw_id?: number | null };

/**
 * The open draw of a product whose board sold out (storefront spec §4): signed in, ensure-open-draw opens it
 * if needed; anonymous visitors (who cannot open draws) get the open one, if any.
 */
export async function openDrawOf(productId: number, signedIn: boolean): Promise<number | null> {
  if (signedIn) {
    const d = await api.post<DrawRef>(`/infoproducts/${productId}/ensure-open-draw`);
    return d.draw_id ?? d.id ?? null;
  }
  const { draw } = await api.get<{ draw: DrawRef }>(`/infoproducts/${productId}/open-draw`);
  return draw.draw_id ?? draw.id ?? null;
}

/** GET /api/draws/{id}: title, product, prize, price, status. */
export function useDraw(drawId: number | null): Loadable<Draw> {
  return useLoad(drawId ? qk.draw(drawId) : null, (signal) => api.get<Draw>(`/draws/${drawId}`, { signal }));
}

/** For a refresh() nobody awaits: its failure already shows through the state's `error`. */
export const noop = () => undefined;

export interface BoardState {
  board: Board | null;
  /** Failure of the last load; with a board on screen, that board is older than it looks. */
  error: unknown;
  loading: boolean;
  /** Loads the board now and resolves with it (the pre-confirmation check uses the fresh copy). */
  refresh(): Promise<Board>;
  /** Whether changes arrive live (server-sent events); otherwise the 15 s poll keeps the board. */
  live: boolean;
}

/** A pushed change applied to the board on screen (cells carry absolute states). */
export function applyLiveEvent(board: Board | null, e: LiveEvent): Board | null {
  if (e.type === 'board')
    return { draw_id: e.data.draw_id, status: e.data.status, total_numbers: e.data.total_numbers, numbers: e.data.numbers };
  if (!board || board.draw_id !== e.data.draw_id) return board;
  if (e.type === 'numbers') {
    const changed = new Map(e.data.numbers.map((c) => [c.n, c]));
    const numbers = board.numbers.map((c) => changed.get(c.n) ?? c);
    for (const c of e.data.numbers) if (!board.numbers.some((x) => x.n === c.n)) numbers.push(c);
    return { ...board, numbers };
  }
  if (e.type === 'draw') return { ...board, status: e.data.status };
  return board;
}

/**
 * GET /api/draws/{id}/numbers, then every change pushed live (useLiveDraws) written into the same
 * query; while the stream is down, polled every 15 s while the tab is visible and again when it
 * comes back after that long (storefront spec §4, §9); the board on screen stays while a reload fails.
 */
export function useBoard(drawId: number | null): BoardState {
  const client = useQueryClient();
  // Each pushed change patches the board in the query cache (cells carry absolute states).
  const live = useLiveDraws(drawId ? [drawId] : [], (e) => {
    if (!drawId || e.data.draw_id !== drawId) return;
    client.setQueryData<Board>(qk.board(drawId), (old) => applyLiveEvent(old ?? null, e) ?? old);
  });
  const q = useQuery({
    queryKey: drawId ? qk.board(drawId) : ['board', 'none'],
    queryFn: ({ signal }) => api.get<Board>(`/draws/${drawId}/numbers`, { signal }),
    enabled: !!drawId,
    // The poll is the fallback: only while the live stream is down.
    refetchInterval: live ? false : BOARD_POLL_MS,
    refetchIntervalInBackground: false,
    refetchOnWindowFocus: !live,
    staleTime: BOARD_POLL_MS,
  });
  /** A fresh read now (a poll in flight is replaced, not reused): the pre-confirmation check. */
  const refresh = useCallback(async (): Promise<Board> => {
    if (!drawId) throw new ApiError(0, 'no_draw', 'Nenhum sorteio selecionado.');
    await client.refetchQueries({ queryKey: qk.board(drawId), exact: true }, { throwOnError: true, cancelRefetch: true });
    const board = client.getQueryData<Board>(qk.board(drawId));
    if (!board) throw new ApiError(0, 'no_board', 'Não foi possível carregar a tabela de números.');
    return board;
  }, [client, drawId]);
  return {
    board: drawId ? (q.data ?? null) : null,
    error: drawId ? (q.error ?? null) : null,
    loading: !!drawId && q.isPending,
    refresh,
    live,
  };
}

/** First number among several field names (storefront spec §3 "Voucher allowance"). */
function numberField(o: Record<string, unknown>, names: string[]): number | null {
  for (const k of names) {
    const v = o[k];
    if (v !== null && v !== undefined && v !== '' && Number.isFinite(Number(v))) return Number(v);
  }
  return null;
}

export function toAllowance(body: unknown): Allowance {
  if (!body || typeof body !== 'object') return ANONYMOUS_ALLOWANCE;
  const o = body as Record<string, unknown>;
  const remaining = numberField(o, ['remaining', 'vouchers_user_remaining_idx', 'left', 'available']);
  const max = numberField(o, ['max', 'limit', 'total']);
  return { remaining: Math.max(0, Math.floor(remaining ?? 0)), max: max && max > 0 ? max : null };
}

export interface AllowanceState {
  allowance: Allowance;
  error: unknown;
  loading: boolean;
  refresh(): Promise<Allowance>;
}

/** GET /api/vouchers/remaining (RULES V5) for a signed-in visitor; anonymous: remaining 0, max null (storefront spec §9). */
export function useAllowance(drawId: number | null, signedIn: boolean): AllowanceState {
  const key = drawId && signedIn ? drawId : null;
  const client = useQueryClient();
  const q = useQuery({
    queryKey: key ? qk.allowance(key) : ['allowance', 'none'],
    queryFn: async ({ signal }) => toAllowance(await api.get('/vouchers/remaining', { query: { draw_id: key }, signal })),
    enabled: key !== null,
  });
  const refresh = useCallback(async (): Promise<Allowance> => {
    if (!key) return ANONYMOUS_ALLOWANCE;
    await client.refetchQueries({ queryKey: qk.allowance(key), exact: true }, { throwOnError: true, cancelRefetch: true });
    return client.getQueryData<Allowance>(qk.allowance(key)) ?? ANONYMOUS_ALLOWANCE;
  }, [client, key]);
  if (!key) return { allowance: ANONYMOUS_ALLOWANCE, error: null, loading: false, refresh };
  return { allowance: q.data ?? ANONYMOUS_ALLOWANCE, error: q.error ?? null, loading: q.isPending, refresh };
}

/**
 * GET /api/me/reservations for a signed-in visitor on a draw: the holds behind their own numbers
 * (board.ts ownNumbers). Marking one's numbers is a help, not a need: a failure leaves the list empty.
 */
export function useMyReservations(drawId: number | null, signedIn: boolean): { items: MyReservation[]; reload(): void } {
  const loaded = useLoad(drawId && signedIn ? qk.myReservations(drawId) : null, async (signal) => {
    try {
      const body = await api.get<{ items?: MyReservation[] }>('/me/reservations', { signal });
      return Array.isArray(body?.items) ? body.items : [];
    } catch (err) {
      if (signal.aborted) throw err;
      return [];
    }
  });
  return { items: loaded.data ?? [], reload: loaded.reload };
}

/** Storefront spec §7 and §9: closed (sold out, awaiting the Lotomania draw), no winner yet, first 12. */
export const CLOSED_DRAWS_SHOWN = 12;

export function awaitingDraw(items: Draw[]): Draw[] {
  return items.filter((d) => d.status === 'closed' && d.winner_user_id == null).slice(0, CLOSED_DRAWS_SHOWN);
}

/**
 * GET /api/draws?status=closed (newest first; decided draws come too, as `sorteado`, and are
 * left out here). A failure shows an empty list, as the spec asks
 * (storefront spec §8: closed-draw load failures → empty list, no message). `version` reloads it.
 */
export function useClosedDraws(version: number): { items: Draw[]; loading: boolean } {
  const loaded = useLoad([...qk.closedDraws, version], async (signal) => {
    try {
      const body = await api.get<{ items?: Draw[] }>('/draws', { query: { status: 'closed' }, signal });
      return awaitingDraw(Array.isArray(body?.items) ? body.items : []);
    } catch (err) {
      if (signal.aborted) throw err;
      return [];
    }
  });
  return { items: loaded.data ?? [], loading: loaded.loading && !loaded.data };
}
