import { api } from '../../../api/client';
import type {
  AdminDraw,
  AdminDrawChange,
  AdminDrawList,
  AdminInfoproductList,
  DashboardSummary,
  NewSeriesResult,
  PublicConfig,
} from '../../../api/types';

/** The body of 'Novo sorteio' / 'Editar sorteio' (account spec §7 field names). */
export interface DrawBody {
  title: string;
  status: 'open' | 'closed';
  price_cents: number;
  numbers_total: number;
  max_per_user: number;
  infoproduct_id: number | null;
}

/** The dashboard's calls (account spec §7 "Admin"): the first listed path of each. */
export const dashboardApi = {
  summary: (signal?: AbortSignal) => api.get<DashboardSummary>('/api/admin/dashboard/summary', { signal }),
  /**
   * 'NOVO SORTEIO': the main series' draw and sold count the admin saw, so a change in between is
   * refused (409); without them (the main series has no open draw) it opens the main series' draw.
   */
  newSeries: (seen?: { drawId: number; sold: number }) =>
    api.post<NewSeriesResult>('/api/admin/dashboard/new', seen ? { draw_id: seen.drawId, confirm_sold: seen.sold } : {}),
  ticketPrice: (priceCents: number) => api.post<DashboardSummary>('/api/admin/dashboard/ticket-price', { price_cents: priceCents }),
  saveConfig: (body: { banner_title: string; max_numbers_per_selection: number }) => api.post<PublicConfig>('/api/config', body),

  draws: (offset: number, limit: number, signal?: AbortSignal) =>
    api.get<AdminDrawList>('/api/admin/draws', { query: { limit, offset }, signal }),
  createDraw: (body: DrawBody) => api.post<AdminDraw>('/api/admin/draws', body),
  updateDraw: (id: number, body: DrawBody) => api.put<AdminDraw>(`/api/admin/draws/${id}`, body),
  setStatus: (id: number, status: 'open' | 'closed') => api.patch<AdminDrawChange>(`/api/admin/draws/${id}`, { status }),
  deleteDraw: (id: number) => api.delete<{ ok: true; id: number }>(`/api/admin/draws/${id}`),

  /**
   * The dialog's e-book list (title, id, price, active): the admin list, so archived (inactive)
   * e-books can be picked too — the public /api/infoproducts shows only the active ones.
   */
  infoproducts: (signal?: AbortSignal) =>
    api.get<AdminInfoproductList>('/api/admin/infoproducts', { query: { active: 'all', limit: 200 }, signal }).then((r) => r.items ?? []),
};
