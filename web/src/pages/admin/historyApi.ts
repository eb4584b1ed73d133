import { api } from '../../api/client';
import type { DrawParticipants, HeldDraw, OpenBuyers, Page, Winner } from '../../api/types';

/** The admin calls of the held raffles, active raffle buyers and winners pages (account spec §7). */
export const historyApi = {
  history: (q: { search?: string; offset?: number; limit?: number }, signal?: AbortSignal) =>
    api.get<Page<HeldDraw>>('/api/admin/draws/history', { query: { limit: q.limit ?? 20, offset: q.offset ?? 0, search: q.search || undefined }, signal }),

  participants: (drawId: number, signal?: AbortSignal) =>
    api.get<DrawParticipants>(`/api/admin/draws/${drawId}/participants`, { query: { limit: 1000 }, signal }),

  /** The buyers of the main series' open draw, or of `drawId` when given (any draw). */
  openBuyers: (drawId: number | null, signal?: AbortSignal) =>
    api.get<OpenBuyers>('/api/admin/dashboard/open-buyers', { query: { draw_id: drawId ?? undefined }, signal }),

  winners: (q: { search?: string; offset?: number; limit?: number }, signal?: AbortSignal) =>
    api.get<Page<Winner>>('/api/admin/winners', { query: { limit: q.limit ?? 20, offset: q.offset ?? 0, search: q.search || undefined }, signal }),

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
