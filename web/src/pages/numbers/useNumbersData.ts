/**
 * Data hooks of /numeros (storefront spec §4 "Number board", §7 calls). All HTTP goes through
 * api/client; answers that arrive for a draw no longer on screen are dropped.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import { api, ApiError } from '../../api/client';
import type { Draw, OpenDrawAnswer, PublicConfig } from '../../api/types';
import { useLiveDraws, type LiveEvent } from '../../live/useLiveDraws';
import { ANONYMOUS_ALLOWANCE, BOARD_POLL_MS, type Allowance, type Board, type DrawSource, type MyReservation } from './board';

const isAbort = (err: unknown) => err instanceof DOMException && err.name === 'AbortError';

export interface Loadable<T> {
  data: T | null;
  error: unknown;
  loading: boolean;
  reload(): void;
}

/** Loads `fn()` whenever `key` changes (null = nothing to load); the previous answer is dropped. */
function useLoad<T>(key: string | null, fn: (signal: AbortSignal) => Promise<T>): Loadable<T> {
  const fnRef = useRef(fn);
  fnRef.current = fn;
  const [nonce, setNonce] = useState(0);
  const [state, setState] = useState<{ key: string | null; data: T | null; error: unknown; loading: boolean }>({
    key: null,
    data: null,
    error: null,
    loading: key !== null,
  });

  useEffect(() => {
    if (key === null) return;
    const ac = new AbortController();
    setState((s) => ({ key, data: s.key === key ? s.data : null, error: null, loading: true }));
    fnRef.current(ac.signal).then(
      (data) => {
        if (!ac.signal.aborted) setState({ key, data, error: null, loading: false });
      },
      (error) => {
        if (!ac.signal.aborted && !isAbort(error)) setState({ key, data: null, error, loading: false });
      },
    );
    return () => ac.abort();
  }, [key, nonce]);

  const reload = useCallback(() => setNonce((n) => n + 1), []);
  if (key === null) return { data: null, error: null, loading: false, reload };
  const current = state.key === key;
  return {
    data: current ? state.data : null,
    error: current ? state.error : null,
    loading: !current || state.loading,
    reload,
  };
}

/** GET /api/config: current draw and the per-selection maximum. */
export function usePublicConfig(): Loadable<PublicConfig> {
  return useLoad('config', (signal) => api.get<PublicConfig>('/config', { signal }));
}

/**
 * The draw to show (spec §4): the id from the navigation state; else the open draw of the product
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
  const loaded = useLoad<number | null>(key, async (signal) => {
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
 * The open draw of a product whose board sold out (spec §4): signed in, ensure-open-draw opens it
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
  return useLoad(drawId ? `draw:${drawId}` : null, (signal) => api.get<Draw>(`/draws/${drawId}`, { signal }));
}

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
  if (e.type === 'board') return { draw_id: e.data.draw_id, status: e.data.status, total_numbers: e.data.total_numbers, numbers: e.data.numbers };
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
 * GET /api/draws/{id}/numbers, then every change pushed live (useLiveDraws); while the stream is
 * down, polled every 15 s while the tab is visible (spec §4, §9).
 */
export function useBoard(drawId: number | null): BoardState {
  const [state, setState] = useState<{ drawId: number | null; board: Board | null; error: unknown; loading: boolean }>({
    drawId,
    board: null,
    error: null,
    loading: true,
  });
  const currentDraw = useRef(drawId);
  currentDraw.current = drawId;
  // Answers are applied in request order: a slow poll never overwrites a newer board.
  const issued = useRef(0);
  const applied = useRef(0);
  const lastLoad = useRef(0);

  const refresh = useCallback(async (): Promise<Board> => {
    if (!drawId) throw new ApiError(0, 'no_draw', 'Nenhum sorteio selecionado.');
    const seq = ++issued.current;
    lastLoad.current = Date.now();
    try {
      const board = await api.get<Board>(`/draws/${drawId}/numbers`);
      if (currentDraw.current === drawId && seq > applied.current) {
        applied.current = seq;
        setState({ drawId, board, error: null, loading: false });
      }
      return board;
    } catch (error) {
      if (currentDraw.current === drawId && seq > applied.current) {
        applied.current = seq;
        setState((s) => ({ ...s, drawId, board: s.drawId === drawId ? s.board : null, error, loading: false }));
      }
      throw error;
    }
  }, [drawId]);

  const live = useLiveDraws(drawId ? [drawId] : [], (e) => {
    if (currentDraw.current !== e.data.draw_id) return;
    // A pushed change is newer than any answer still in flight: those are dropped.
    applied.current = issued.current;
    setState((s) => {
      const board = applyLiveEvent(s.drawId === e.data.draw_id ? s.board : null, e);
      return board ? { drawId: e.data.draw_id, board, error: null, loading: false } : s;
    });
  });
  const liveRef = useRef(live);
  liveRef.current = live;

  useEffect(() => {
    if (!drawId) return;
    setState({ drawId, board: null, error: null, loading: true });
    refresh().catch(() => undefined);
    const timer = window.setInterval(() => {
      if (!document.hidden && !liveRef.current) refresh().catch(() => undefined);
    }, BOARD_POLL_MS);
    const onVisible = () => {
      if (!document.hidden && !liveRef.current && Date.now() - lastLoad.current >= BOARD_POLL_MS) refresh().catch(() => undefined);
    };
    document.addEventListener('visibilitychange', onVisible);
    return () => {
      window.clearInterval(timer);
      document.removeEventListener('visibilitychange', onVisible);
    };
  }, [drawId, refresh]);

  const current = state.drawId === drawId;
  return {
    board: current ? state.board : null,
    error: current ? state.error : null,
    loading: !!drawId && (!current || state.loading),
    refresh,
    live,
  };
}

/** First number among several field names (spec §3 "Voucher allowance"). */
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

/** GET /api/vouchers/remaining for a signed-in visitor; anonymous: remaining 0, max null (spec §9). */
export function useAllowance(drawId: number | null, signedIn: boolean): AllowanceState {
  const key = drawId && signedIn ? drawId : null;
  const [state, setState] = useState<{ key: number | null; allowance: Allowance; error: unknown; loading: boolean }>({
    key: null,
    allowance: ANONYMOUS_ALLOWANCE,
    error: null,
    loading: false,
  });
  const currentKey = useRef(key);
  currentKey.current = key;

  const refresh = useCallback(async (): Promise<Allowance> => {
    if (!key) return ANONYMOUS_ALLOWANCE;
    try {
      const allowance = toAllowance(await api.get('/vouchers/remaining', { query: { draw_id: key } }));
      if (currentKey.current === key) setState({ key, allowance, error: null, loading: false });
      return allowance;
    } catch (error) {
      if (currentKey.current === key) setState((s) => ({ ...s, key, error, loading: false }));
      throw error;
    }
  }, [key]);

  useEffect(() => {
    if (!key) return;
    setState({ key, allowance: ANONYMOUS_ALLOWANCE, error: null, loading: true });
    refresh().catch(() => undefined);
  }, [key, refresh]);

  if (!key) return { allowance: ANONYMOUS_ALLOWANCE, error: null, loading: false, refresh };
  const current = state.key === key;
  return {
    allowance: current ? state.allowance : ANONYMOUS_ALLOWANCE,
    error: current ? state.error : null,
    loading: !current || state.loading,
    refresh,
  };
}

/**
 * GET /api/me/reservations for a signed-in visitor on a draw: the holds behind their own numbers
 * (board.ts ownNumbers). Marking one's numbers is a help, not a need: a failure leaves the list empty.
 */
export function useMyReservations(drawId: number | null, signedIn: boolean): { items: MyReservation[]; reload(): void } {
  const loaded = useLoad(drawId && signedIn ? `mine:${drawId}` : null, async (signal) => {
    try {
      const body = await api.get<{ items?: MyReservation[] }>('/me/reservations', { signal });
      return Array.isArray(body?.items) ? body.items : [];
    } catch (err) {
      if (isAbort(err)) throw err;
      return [];
    }
  });
  return { items: loaded.data ?? [], reload: loaded.reload };
}

/** Spec §7 and §9: closed (sold out, awaiting the Lotomania draw), no winner yet, first 12. */
export const CLOSED_DRAWS_SHOWN = 12;

export function awaitingDraw(items: Draw[]): Draw[] {
  return items.filter((d) => d.status === 'closed' && d.winner_user_id == null).slice(0, CLOSED_DRAWS_SHOWN);
}

/**
 * GET /api/draws?status=closed (newest first; decided draws come too, as `sorteado`, and are
 * left out here). A failure shows an empty list, as the spec asks
 * (§8: closed-draw load failures → empty list, no message). `version` reloads it.
 */
export function useClosedDraws(version: number): { items: Draw[]; loading: boolean } {
  const loaded = useLoad(`closed:${version}`, async (signal) => {
    try {
      const body = await api.get<{ items?: Draw[] }>('/draws', { query: { status: 'closed' }, signal });
      return awaitingDraw(Array.isArray(body?.items) ? body.items : []);
    } catch (err) {
      if (isAbort(err)) throw err;
      return [];
    }
  });
  return { items: loaded.data ?? [], loading: loaded.loading && !loaded.data };
}
