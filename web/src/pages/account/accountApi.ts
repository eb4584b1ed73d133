import { api } from '../../api/client';
import type { Draw, PublicConfig } from '../../api/types';
import type { CouponBalance, CouponSync, EbookLink, MyDrawBoard, ParticipationItem } from '../../../../src/shared/api/account';
import type { PixPayment } from '../purchase/purchaseApi';
import type { MyPrize } from '../../../../src/shared/prize';
import type { ReservationLike } from './participations';

/** Reservation and payment reads add a cache-busting timestamp (account spec §7). */
const fresh = () => ({ _: Date.now() });

/** The calls of the customer area and the draw detail (account spec §7 "Customer area"). */
export const accountApi = {
  payments: (signal?: AbortSignal) =>
    api.get<{ items: ParticipationItem[] }>('/api/payments/me', { query: fresh(), signal }).then((r) => r.items ?? []),

  activeReservations: (signal?: AbortSignal) =>
    api.get<{ items: ReservationLike[] }>('/api/me/reservations', { query: { active: 1, ...fresh() }, signal }).then((r) => r.items ?? []),

  openDraws: (signal?: AbortSignal) =>
    api.get<{ items: Draw[] }>('/api/draws', { query: { status: 'open', limit: 50 }, signal }).then((r) => r.items ?? []),

  remaining: (drawId: number, signal?: AbortSignal) =>
    api.get<{ remaining: number; max: number | null }>('/api/vouchers/remaining', { query: { draw_id: drawId }, signal }),

  /** PIX for a reservation (account spec §4 pay flow). */
  pixForReservation: (reservationId: number) => api.post<PixPayment>('/api/payments/pix', { reservationId, reservation_id: reservationId }),

  paymentStatus: (paymentId: number, signal?: AbortSignal) =>
    api.get<{ status: string; paymentId: number }>(`/api/payments/${paymentId}/status`, { signal }),

  ebookByDraw: (drawId: number) => api.get<EbookLink>(`/api/ebooks/by-draw/${drawId}`),

  coupon: (signal?: AbortSignal) => api.get<CouponBalance>('/api/coupons/mine', { query: fresh(), signal }),
  syncCoupon: () => api.post<CouponSync>('/api/coupons/sync'),

  config: (signal?: AbortSignal) => api.get<PublicConfig>('/api/config', { signal }),
  saveConfig: (body: { banner_title: string; max_numbers_per_selection: number }) => api.post<PublicConfig>('/api/config', body),

  exportMine: () => api.file('/api/me/export'),

  prizes: (signal?: AbortSignal) => api.get<{ items: MyPrize[] }>('/api/me/prizes', { signal }).then((r) => r.items ?? []),

  board: (drawId: number, signal?: AbortSignal) => api.get<MyDrawBoard>(`/api/me/draws/${drawId}/board`, { query: fresh(), signal }),
};
