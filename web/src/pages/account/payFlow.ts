/**
 * 'Gerar PIX' of a pending participation (account spec §4 "Pay flow", §8 PIX errors): find the
 * person's newest active reservation for the draw and numbers; reuse its pending PIX payment when
 * that still has QR data, else create the PIX; when the server says the reservation is inactive or
 * expired, look the reservation up again and retry once with the one found.
 */
import type { ParticipationItem } from '../../../../src/shared/api/account';
import type { PixPayment as ApiPixPayment } from '../../../../src/shared/api/payments';
import { reservationEntryStatus, type ReservationLike } from './participations';

export const PIX_INACTIVE = 'Falha ao gerar PIX: sua reserva não está ativa. Volte ao sorteio para reservar novamente.';
export const PIX_ROUTE_MISSING = 'Falha ao gerar PIX (rota não encontrada no servidor).';
export const PIX_GENERIC = 'Falha ao gerar PIX.';
export const pixHttpError = (status: number) => `Falha ao gerar PIX (HTTP ${status}).`;

/**
 * What the PIX dialog shows: the API's PixPayment (src/shared/api/payments.ts) but the fields a
 * payment rebuilt from a participation (reusablePayment) does not carry and the dialog does not read.
 */
export type PixPayment = Omit<ApiPixPayment, 'txid' | 'copy_paste' | 'draw_id' | 'numbers'>;

/** Thrown when there is no active reservation to pay. */
export class InactiveReservationError extends Error {
  constructor() {
    super(PIX_INACTIVE);
    this.name = 'InactiveReservationError';
  }
}

/**
 * The shape of the API client's ApiError, checked structurally so that this module stays pure
 * (the client reads import.meta.env, which the unit tests under Node cannot load).
 */
interface ApiErrorLike {
  status: number;
  code: string;
  message: string;
  fromServer?: boolean;
}

function asApiError(err: unknown): ApiErrorLike | null {
  if (!err || typeof err !== 'object') return null;
  const e = err as Partial<ApiErrorLike>;
  return typeof e.status === 'number' && typeof e.code === 'string' ? (e as ApiErrorLike) : null;
}

const isInactiveCode = (code: string) => /reserv\w*_(inactive|expired|not_active|not_found)|reservation_(inactive|expired)/.test(code);

/** An answer that means 'this reservation can no longer be paid' (400 reservation_inactive / expired). */
export function isInactiveReservation(err: unknown): boolean {
  if (err instanceof InactiveReservationError) return true;
  const e = asApiError(err);
  return !!e && (e.status === 400 || e.status === 404 || e.status === 409) && isInactiveCode(e.code);
}

/** The text of a failed 'Gerar PIX' (account spec §8), and the server's own words when it sent some. */
export function pixErrorText(err: unknown): { title: string; detail: string | null } {
  if (isInactiveReservation(err)) return { title: PIX_INACTIVE, detail: null };
  const e = asApiError(err);
  if (e) {
    if (e.status === 0 || e.code === 'network_error') return { title: PIX_GENERIC, detail: e.message };
    if (e.status === 404) return { title: PIX_ROUTE_MISSING, detail: null };
    return { title: pixHttpError(e.status), detail: e.fromServer ? e.message : null };
  }
  return { title: PIX_GENERIC, detail: null };
}

const ms = (iso: string | null | undefined) => {
  const t = iso ? Date.parse(iso) : NaN;
  return Number.isFinite(t) ? t : 0;
};

/**
 * The newest active reservation of the draw that holds any of `numbers` (all of the draw's holds
 * when `numbers` is empty); null when there is none.
 */
export function findReservation(list: ReservationLike[], drawId: number, numbers: number[], now: number): ReservationLike | null {
  const wanted = new Set(numbers);
  const candidates = list.filter(
    (r) =>
      r.draw_id === drawId &&
      reservationEntryStatus(r.status) === 'pending' &&
      (!r.expires_at || ms(r.expires_at) > now) &&
      (wanted.size === 0 || r.numbers.some((n) => wanted.has(n))),
  );
  candidates.sort((a, b) => ms(b.created_at) - ms(a.created_at) || b.id - a.id);
  return candidates[0] ?? null;
}

/** A pending payment of that reservation that still has its QR data, as the PIX dialog shows it. */
export function reusablePayment(items: ParticipationItem[], reservationId: number, now: number): PixPayment | null {
  const p = items
    .filter(
      (i) =>
        i.reservation_id === reservationId &&
        i.status === 'pending' &&
        !!i.pix &&
        !!(i.pix.copy_paste || i.pix.qr_code) &&
        (!i.expires_at || ms(i.expires_at) > now),
    )
    .sort((a, b) => b.id - a.id)[0];
  if (!p || !p.pix) return null;
  return {
    paymentId: p.id,
    id: p.id,
    status: p.status,
    qr_code_base64: p.pix.qr_code_base64 || null,
    copy_paste_code: p.pix.copy_paste || p.pix.qr_code,
    qr_code: p.pix.qr_code || p.pix.copy_paste,
    amount: p.amount_cents / 100,
    amount_cents: p.amount_cents,
    expires_at: p.expires_at,
  };
}

export interface PayDeps {
  reservations(): Promise<ReservationLike[]>;
  payments(): Promise<ParticipationItem[]>;
  createPix(reservationId: number): Promise<PixPayment>;
  now(): number;
}

/** Runs the pay flow for the pending numbers of one draw; resolves with the payment to show. */
export async function payParticipation(deps: PayDeps, drawId: number, numbers: number[]): Promise<PixPayment> {
  const [reservations, payments] = await Promise.all([deps.reservations(), deps.payments()]);
  const first = findReservation(reservations, drawId, numbers, deps.now());
  if (!first) throw new InactiveReservationError();
  const reused = reusablePayment(payments, first.id, deps.now());
  if (reused) return reused;
  try {
    return await deps.createPix(first.id);
  } catch (err) {
    if (!isInactiveReservation(err)) throw err;
    // The hold we saw ended: look again and retry once with the newest active one.
    const again = findReservation(await deps.reservations(), drawId, numbers, deps.now());
    if (!again || again.id === first.id) throw new InactiveReservationError();
    return deps.createPix(again.id);
  }
}
