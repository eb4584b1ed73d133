import { api } from '../../api/client';
import type { AdminCategory, AdminInfoproduct, AdminInfoproductList, AdminPayment, AdminPaymentList } from '../../api/types';

/** The console's e-book calls (account spec §7 Admin: /admin/infoproducts). */
export const infoproductsApi = {
  list: (q: { search?: string; limit: number; offset: number }, signal?: AbortSignal) =>
    api.get<AdminInfoproductList & { categories: AdminCategory[] }>('/api/admin/infoproducts', {
      query: { search: q.search || undefined, limit: q.limit, offset: q.offset },
      signal,
    }),
  create: (body: Record<string, unknown>) => api.post<AdminInfoproduct>('/api/admin/infoproducts', body),
  update: (id: number, body: Record<string, unknown>) => api.put<AdminInfoproduct>(`/api/admin/infoproducts/${id}`, body),
  archive: (id: number) => api.delete<AdminInfoproduct>(`/api/admin/infoproducts/${id}`),
  uploadPdf: (id: number, file: Blob, name: string) => api.upload<AdminInfoproduct>(`/api/admin/infoproducts/${id}/file`, file, name),
  uploadCover: (id: number, file: Blob, name: string) => api.upload<AdminInfoproduct>(`/api/admin/infoproducts/${id}/cover`, file, name),
};

/** Payments to review (GET /api/admin/payments and its actions). */
export const paymentsReviewApi = {
  list: (q: { status?: string; flagged?: boolean; reviewed?: boolean; q?: string; limit: number; cursor?: number }, signal?: AbortSignal) =>
    api.get<AdminPaymentList>('/api/admin/payments', {
      query: {
        status: q.status || undefined,
        flagged: q.flagged === undefined ? undefined : q.flagged ? 1 : 0,
        reviewed: q.reviewed === undefined ? undefined : q.reviewed ? 1 : 0,
        q: q.q || undefined,
        limit: q.limit,
        cursor: q.cursor,
      },
      signal,
    }),
  review: (id: number, note: string) => api.post<AdminPayment>(`/api/admin/payments/${id}/review`, { note }),
  approve: (id: number) => api.post<AdminPayment>(`/api/admin/payments/${id}/approve`),
  /** The operator's refund: the provider refunds, then everything the payment bought is undone. */
  refund: (id: number, reason: string) =>
    api.post<AdminPayment & { refund: { refunded: boolean; already: boolean; pending: boolean } }>(`/api/admin/payments/${id}/refund`, {
      reason,
    }),
};
