import { api } from '../../api/client';
import type { Product } from '../../api/types';
import type { PixPayment } from '../account/payFlow';

/** Answer of POST /api/payments/infoproduct, as the PIX dialog keeps it (storefront spec §3 "Payment response"). */
export type { PixPayment };

export interface PaymentStatus {
  status: string;
  paymentId: number;
}

/** Answer of POST /api/purchases/confirm. */
export interface PurchaseConfirmation {
  ok: boolean;
  vouchers_granted: number;
  draw_id: number | null;
  drawId: number | null;
  remaining: number | null;
}

/** Answer of POST /api/infoproducts/{idOrSku}/ensure-open-draw. */
export interface EnsuredDraw {
  draw_id?: number;
  id?: number;
  total_numbers?: number;
}

/**
 * The status check can be switched off at build time (VITE_PAYMENT_STATUS_CHECK=off, storefront
 * spec §4): it then always answers pending and approval is left to the customer area.
 */
const STATUS_CHECK_ENABLED = (import.meta.env.VITE_PAYMENT_STATUS_CHECK ?? '').toLowerCase() !== 'off';

export const purchaseApi = {
  createPayment: (infoproductId: number, quantity: number, amountCentsTotal: number) =>
    api.post<PixPayment>('/api/payments/infoproduct', {
      infoproduct_id: infoproductId,
      quantity,
      amount_cents_total: amountCentsTotal,
    }),

  async status(paymentId: number, signal?: AbortSignal): Promise<PaymentStatus> {
    if (!STATUS_CHECK_ENABLED) return { status: 'pending', paymentId };
    return api.get<PaymentStatus>(`/api/payments/${paymentId}/status`, { signal });
  },

  confirm: (paymentId: number, infoproductId: number) =>
    api.post<PurchaseConfirmation>('/api/purchases/confirm', { payment_id: paymentId, infoproduct_id: infoproductId }),

  ensureOpenDraw: (idOrSku: number | string) =>
    api.post<EnsuredDraw>(`/api/infoproducts/${encodeURIComponent(String(idOrSku))}/ensure-open-draw`),

  /** One product with its open draw (used to resume a purchase after sign-in). */
  product: (idOrSku: number | string) => api.get<Product>(`/api/infoproducts/${encodeURIComponent(String(idOrSku))}`),
};

/** Payment statuses in Portuguese for the 'Status: …' alert; unknown ones are shown as sent. */
const STATUS_PT: Record<string, string> = {
  pending: 'pendente',
  approved: 'aprovado',
  expired: 'expirado',
  cancelled: 'cancelado',
  canceled: 'cancelado',
  rejected: 'recusado',
  refunded: 'estornado',
  charged_back: 'contestado',
  in_process: 'em análise',
  authorized: 'autorizado',
  in_mediation: 'em disputa',
};

export function statusLabel(status: string | null | undefined): string {
  const s = (status ?? '').trim();
  if (!s) return 'pendente';
  return STATUS_PT[s.toLowerCase()] ?? s;
}

export const isApproved = (status: string | null | undefined) => (status ?? '').trim().toLowerCase() === 'approved';

/** Final statuses that will never become approved: the PIX code is dead. */
export const isDead = (status: string | null | undefined) =>
  ['expired', 'cancelled', 'canceled', 'rejected', 'refunded', 'charged_back'].includes((status ?? '').trim().toLowerCase());
