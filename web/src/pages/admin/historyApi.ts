import { api } from '../../api/client';
import type { DrawParticipants, HeldDraw, OpenBuyers, Page, Winner, WinnerList } from '../../api/types';

/** The admin calls of the held raffles, active raffle buyers and winners pages (account spec §7). */
export const historyApi = {
  history: (q: { search?: string; offset?: number; limit?: number }, signal?: AbortSignal) =>
    api.get<Page<HeldDraw>>('/api/admin/draws/history', {
      query: { limit: q.limit ?? 20, offset: q.offset ?? 0, search: q.search || undefined },
      signal,
    }),

  participants: (drawId: number, signal?: AbortSignal) =>
    api.get<DrawParticipants>(`/api/admin/draws/${drawId}/participants`, { query: { limit: 1000 }, signal }),

  /** The buyers of the main series' open draw, or of `drawId` when given (any draw). */
  openBuyers: (drawId: number | null, signal?: AbortSignal) =>
    api.get<OpenBuyers>('/api/admin/dashboard/open-buyers', { query: { draw_id: drawId ?? undefined }, signal }),

  /** The list comes under the spec's key `winners`; the console's paged lists read `items`. */
  winners: (q: { search?: string; offset?: number; limit?: number }, signal?: AbortSignal): Promise<Page<Winner>> =>
    api
      .get<WinnerList>('/api/admin/winners', {
        query: { limit: q.limit ?? 20, offset: q.offset ?? 0, search: q.search || undefined },
        signal,
      })
      .then(({ winners, ...page }) => ({ ...page, items: winners })),

  updatePrize: (drawId: number, body: { product_name?: string | null; product_link?: string | null; redeemed?: boolean }) =>
    api.patch<Winner>(`/api/admin/winners/${drawId}`, body),
};

/** 7 → "007" (Nº SORTEIO, account spec §2). */
export const pad3 = (n: number) => String(n).padStart(3, '0');

/** The same rule as the server: an absolute http(s) address. */
export function isHttpUrl(v: string): boolean {
  try {
    const u = new URL(v.trim());
    return (u.protocol === 'http:' || u.protocol === 'https:') && !!u.hostname;
  } catch {
    return false;
  }
}
