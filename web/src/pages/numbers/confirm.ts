/**
 * Confirming numbers with vouchers (storefront spec §7 "POST /api/reservations", "Confirm by
 * voucher"; §8 messages): hold the numbers, then spend one voucher per number.
 */
import { api, ApiError, errorMessage } from '../../api/client';
import { conflictsOf, formatNumbers, sortUnique, type ConsumeResult, type Reservation } from './board';

export const SUCCESS_MESSAGE = 'Números confirmados com sucesso! Boa sorte';

/** More numbers picked than the vouchers left (on the board and again before the dialog). */
export const LIMIT_TEXT = 'Você atingiu seu limite de números disponíveis neste sorteio.';

export const reservedText = (ns: readonly number[]) => `Alguns números ficaram indisponíveis/reservados: ${formatNumbers(ns)}`;
export const confirmConflictText = (ns: readonly number[]) => `Alguns números entraram em conflito na confirmação: ${formatNumbers(ns)}`;

export function reserveNumbers(drawId: number, numbers: readonly number[]): Promise<Reservation> {
  return api.post<Reservation>('/reservations', { numbers: sortUnique(numbers), draw_id: drawId });
}

export function consumeVouchers(drawId: number, reservationId: number, numbers: readonly number[]): Promise<ConsumeResult> {
  return api.post<ConsumeResult>('/vouchers/consume', {
    numbers: sortUnique(numbers),
    reservationId,
    reservation_id: reservationId,
    draw_id: drawId,
  });
}

export interface FailureText {
  text: string;
  /** Numbers the server named as taken (to drop from the selection). */
  conflicts: number[];
}

/** A failed reservation (storefront spec §8): 409 → the numbers now unavailable; otherwise the server's text. */
export function reservationFailure(err: unknown, numbers: readonly number[]): FailureText {
  if (err instanceof ApiError && err.status === 409 && err.code === 'numbers_conflict') {
    const conflicts = conflictsOf(err.body) ?? sortUnique(numbers);
    return { text: reservedText(conflicts), conflicts };
  }
  return { text: errorMessage(err, 'Falha ao reservar'), conflicts: [] };
}

/** A failed confirmation (storefront spec §8): 409 conflict → the numbers; otherwise the server's text or the status. */
export function consumeFailure(err: unknown, numbers: readonly number[]): FailureText {
  if (err instanceof ApiError && err.status === 409 && err.code === 'numbers_conflict') {
    const conflicts = conflictsOf(err.body) ?? sortUnique(numbers);
    return { text: confirmConflictText(conflicts), conflicts };
  }
  const status = err instanceof ApiError && err.status ? err.status : null;
  return {
    text: errorMessage(err, status ? `Falha ao confirmar (${status})` : 'Não foi possível confirmar seus números agora.'),
    conflicts: [],
  };
}
