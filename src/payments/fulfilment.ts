import type { Trx } from '../platform/db';
import type { VouchersService } from '../draws/vouchers';
import type { DrawsService } from '../draws/service';
import { ownedCount } from '../draws/queries';
import { releaseReservation, sellNumbers } from '../draws/sales';
import { lockForSale } from '../draws/locks';
import { creditLateApproval, creditPaymentCashback } from '../coupons/service';
import type { Receipts } from './receipt';

export interface PaymentRow {
  id: number;
  user_id: number;
  kind: 'infoproduct' | 'reservation' | 'autopay' | 'admin';
  method: 'pix' | 'card' | 'admin';
  provider: string;
  provider_payment_id: string | null;
  status: string;
  amount_cents: number;
  quantity: number | null;
  infoproduct_id: number | null;
  draw_id: number | null;
  reservation_id: number | null;
  numbers: number[] | null;
  txid: string | null;
  qr_code: string | null;
  qr_code_base64: string | null;
  expires_at: Date | null;
  paid_at: Date | null;
  /** The PIX end-to-end id the provider reported on approval (RULES P13). */
  pix_e2e_id?: string | null;
  flagged_for_review: boolean;
  review_reason: string | null;
  last_checked_at: Date | null;
  lapsed_at: Date | null;
  provider_cancel_pending: boolean;
  fulfilment_on_hold: boolean;
  /** What the provider refunded so far (RULES P12: a partial refund is flagged, not undone). */
  refunded_cents?: number;
  /** When the re-check job asks the provider again (RULES P11). */
  recheck_at?: Date | null;
  created_at: Date;
}

export interface FulfilmentDeps {
  vouchers: VouchersService;
  draws?: DrawsService;
  /** Writes the purchase receipt mail (once: only when this call fulfilled the payment). */
  receipts?: Receipts;
}

/**
 * The one place where an approved payment turns into what it bought, exactly
 * once: payment_fulfilments' primary key admits one row per payment, inserted in
 * the same transaction as the grant. Returns fulfilled=false when it was already done.
 */
export async function fulfilPayment(
  trx: Trx,
  payment: PaymentRow,
  deps: FulfilmentDeps,
): Promise<{ fulfilled: boolean; result: Record<string, unknown>; touchedDrawId?: number; receiptOutboxId?: number | null }> {
  if (payment.status !== 'approved') throw new Error(`payment ${payment.id} is ${payment.status}, not approved`);
  // Approved for less than charged: a person decides (RULES P6), nothing is delivered automatically.
  if (payment.fulfilment_on_hold) return { fulfilled: false, result: { on_hold: true } };
  const claimed = await trx('payment_fulfilments')
    .insert({ payment_id: payment.id })
    .onConflict('payment_id')
    .ignore()
    .returning('payment_id');
  if (!claimed.length) {
    const prev = await trx('payment_fulfilments').where({ payment_id: payment.id }).first();
    return { fulfilled: false, result: prev?.result ?? {} };
  }
  let result: Record<string, unknown>;
  let touchedDrawId: number | undefined;
  if ((payment.kind === 'infoproduct' || payment.kind === 'admin') && payment.infoproduct_id && payment.quantity) {
    await deps.vouchers.grantForPayment(trx, {
      paymentId: payment.id,
      userId: payment.user_id,
      infoproductId: payment.infoproduct_id,
      quantity: payment.quantity,
      source: payment.kind === 'admin' ? 'admin' : 'purchase',
    });
    result = { vouchers: payment.quantity, infoproduct_id: payment.infoproduct_id };
  } else if ((payment.kind === 'reservation' || payment.kind === 'autopay') && payment.draw_id && payment.numbers?.length) {
    result = await sellPaidNumbers(trx, payment, deps);
    touchedDrawId = payment.draw_id;
  } else {
    throw new Error(`payment ${payment.id} (${payment.kind}) has nothing to fulfil`);
  }
  await creditPaymentCashback(trx, payment); // store credit, once per payment (RULES C2)
  await trx('payment_fulfilments')
    .where({ payment_id: payment.id })
    .update({ result: JSON.stringify(result) });
  // RULES P4: the receipt rides on the one fulfilment row, so a repeated approval never writes a second mail.
  const receiptOutboxId = deps.receipts ? await deps.receipts.enqueue(trx, payment) : null;
  return { fulfilled: true, result, touchedDrawId, receiptOutboxId };
}

/**
 * A paid reservation: its numbers become the payer's. Late approval (RULES P5):
 * numbers no longer held by the reservation are sold anyway when still free, all
 * within the draw's max_per_user; the rest become vouchers of the draw's product
 * (or coupon credit to the cent for a draw without product) and the payment is
 * flagged for review. Never money without something given.
 */
async function sellPaidNumbers(trx: Trx, p: PaymentRow, deps: FulfilmentDeps) {
  const drawId = p.draw_id as number;
  const numbers = [...(p.numbers as number[])].sort((a, b) => a - b);
  // RULES N4 (draws/locks.ts): reservation, draw, cells, then (draw, user) when the draw has a per-user limit.
  const { draw, cells } = await lockForSale(trx, {
    reservationId: p.reservation_id,
    drawIds: [drawId],
    numbers,
    user: { id: p.user_id, ifLimited: true },
  });
  const drawOpen = draw?.status === 'open';
  // Still held by this reservation first (the normal case), then numbers that are free again.
  const held = cells.filter((c) => c.status === 'reserved' && c.reservation_id === p.reservation_id).map((c) => c.n);
  const free = drawOpen ? cells.filter((c) => c.status === 'available').map((c) => c.n) : [];
  let sellable = [...held, ...free];
  let overLimit: number[] = [];
  if (draw && draw.max_per_user > 0 && sellable.length) {
    const room = Math.max(0, draw.max_per_user - (await ownedCount(trx, drawId, p.user_id)));
    overLimit = sellable.slice(room).sort((a, b) => a - b);
    sellable = sellable.slice(0, room);
  }
  sellable.sort((a, b) => a - b);
  // A number the payer already owns came from another sale (a voucher, another
  // payment): this payment did not deliver it either, so it counts as lost.
  const lost = numbers.filter((n) => !sellable.includes(n));
  const unavailable = lost.filter((n) => !overLimit.includes(n));
  if (sellable.length) {
    await sellNumbers(trx, {
      drawId,
      numbers: sellable,
      userId: p.user_id,
      paymentId: p.id,
      source: p.kind === 'autopay' ? 'autopay' : 'pix',
    });
  }
  if (p.reservation_id) {
    // Anything else the reservation still holds goes back to the board.
    await releaseReservation(trx, p.reservation_id, 'paid');
  }
  const result: Record<string, unknown> = { draw_id: drawId, sold: sellable };
  if (lost.length) {
    if (draw?.infoproduct_id) {
      await deps.vouchers.grantForPayment(trx, {
        paymentId: p.id,
        userId: p.user_id,
        infoproductId: draw.infoproduct_id,
        quantity: lost.length,
        reason: 'late_approval',
      });
      result.vouchers = lost.length;
    } else {
      const credit = lostNumbersCreditCents(p.amount_cents, numbers.length, sellable.length);
      await creditLateApproval(trx, {
        userId: p.user_id,
        paymentId: p.id,
        cents: credit,
        note: `números ${lost.join(', ')} não entregues`,
      });
      result.coupon_cents = credit;
    }
    result.lost = lost;
    if (overLimit.length) result.over_limit = overLimit;
    const why = [
      unavailable.length ? `números ${unavailable.join(', ')} já vendidos` : null,
      overLimit.length ? `números ${overLimit.join(', ')} acima do limite de ${draw?.max_per_user} por pessoa` : null,
    ].filter(Boolean);
    await trx('payments')
      .where({ id: p.id })
      .update({ flagged_for_review: true, review_reason: `aprovação tardia: ${why.join('; ')}`, updated_at: trx.fn.now() });
  }
  if (sellable.length && drawOpen && deps.draws) {
    const s = await deps.draws.closeIfSoldOut(trx, drawId);
    if (s.closed) result.next_draw_id = s.successorId;
  }
  return result;
}

/**
 * What the numbers a payment paid for but did not get are worth, to the cent: the
 * amount minus the share of the delivered ones (rounded down, so any odd cent goes
 * to the payer). All lost → the whole amount.
 */
export function lostNumbersCreditCents(amountCents: number, paidNumbers: number, deliveredNumbers: number): number {
  if (paidNumbers <= 0) return 0;
  return amountCents - Math.floor((amountCents * deliveredNumbers) / paidNumbers);
}
