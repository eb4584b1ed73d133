import type { Trx } from '../platform/db';
import { errors } from '../platform/errors';
import { audit } from '../platform/audit';
import { releaseHeldCells } from '../draws/queries';
import { fulfilPayment, type PaymentRow } from './fulfilment';
import { reversePaymentCashback } from '../coupons/service';
import type { ProviderPayment, ProviderStatus } from './providers/types';
import { LAPSED_STATUSES } from './queries';
import type { PaymentsDeps } from './deps';

/** Statuses a payment may move to from each status (DESIGN §5, plus late approval of lapsed ones). */
export const TRANSITIONS: Record<string, ProviderStatus[]> = {
  // pending → refunded/charged_back: approved and returned before we ever saw the approval
  // (nothing was delivered, nothing to revoke; flagged for review).
  pending: ['approved', 'rejected', 'cancelled', 'expired', 'refunded', 'charged_back'],
  expired: ['approved'],
  cancelled: ['approved'],
  rejected: ['approved'],
  approved: ['refunded', 'charged_back'],
  refunded: [],
  charged_back: [],
};

const isLapsed = (s: string) => (LAPSED_STATUSES as readonly string[]).includes(s);

/**
 * The one transition function: moves a payment to the provider's status under a row lock and,
 * in the same transaction, fulfils it (approval) or undoes what it gave (refund, chargeback).
 * Anything not in TRANSITIONS is a no-op, so every detection path may deliver any number of times.
 */
export function createApplyProviderState(deps: PaymentsDeps) {
  const { db } = deps;

  return async function applyProviderState(paymentId: number, remote: ProviderPayment): Promise<PaymentRow> {
    const result = await db.transaction(async (trx) => {
      const p: PaymentRow | undefined = await trx('payments').where({ id: paymentId }).forUpdate().first();
      if (!p) throw errors.notFound('payment_not_found', 'Pagamento não encontrado.');
      if (p.provider_payment_id && remote.providerPaymentId !== p.provider_payment_id) {
        throw new Error(`provider payment ${remote.providerPaymentId} does not belong to payment ${paymentId}`);
      }
      const touched = new Set<number>();
      let target = remote.status;
      // Our own expiry: a still-pending charge past its time.
      if (target === 'pending' && p.status === 'pending' && p.expires_at && new Date(p.expires_at).getTime() <= Date.now()) target = 'expired';
      if (target === p.status || !TRANSITIONS[p.status]?.includes(target)) {
        // Nothing to change, but an approved payment is always fulfilled (repairs a crash between).
        if (p.status === 'approved') {
          const f = await fulfilPayment(trx, p, { vouchers: deps.vouchers, draws: deps.draws, receipts: deps.receipts });
          if (f.touchedDrawId) touched.add(f.touchedDrawId);
          return { p, f, touched };
        }
        return { p, f: null, touched };
      }
      const approving = target === 'approved';
      // Less than charged: not fulfilled, a person decides (DESIGN §5). More: fulfilled, flagged.
      const underpaid = approving && remote.amountCents < p.amount_cents;
      const amountMismatch = approving && remote.amountCents !== p.amount_cents;
      if (amountMismatch) deps.logger.warn({ paymentId, expected: p.amount_cents, got: remote.amountCents }, 'approved amount differs from the charged amount');
      const reviewReason =
        target === 'refunded' || target === 'charged_back'
          ? `pagamento ${target === 'refunded' ? 'estornado' : 'contestado (chargeback)'}`
          : underpaid
            ? `valor aprovado (${remote.amountCents}) menor que o cobrado (${p.amount_cents}): não entregue, aguarda análise`
            : amountMismatch
              ? `valor aprovado (${remote.amountCents}) difere do cobrado (${p.amount_cents})`
              : approving && p.status !== 'pending'
                ? `aprovado depois de ${p.status}`
                : null;
      const [row]: PaymentRow[] = await trx('payments')
        .where({ id: paymentId })
        .update({
          status: target,
          paid_at: approving ? (remote.paidAt ?? trx.fn.now()) : p.paid_at,
          lapsed_at: isLapsed(target) ? trx.fn.now() : p.lapsed_at,
          fulfilment_on_hold: underpaid || p.fulfilment_on_hold,
          // Paid after all: there is nothing left to cancel at the provider.
          provider_cancel_pending: approving ? false : p.provider_cancel_pending,
          flagged_for_review: reviewReason ? true : p.flagged_for_review,
          review_reason: reviewReason ?? p.review_reason,
          updated_at: trx.fn.now(),
        })
        .returning('*');
      await audit(trx, { actor: 'system', action: `payment.${target}`, entity: 'payment', entityId: paymentId, data: { from: p.status, provider: p.provider, ...(underpaid ? { amount_cents: remote.amountCents } : {}) } });
      if (approving && !underpaid) {
        const f = await fulfilPayment(trx, row, { vouchers: deps.vouchers, draws: deps.draws, receipts: deps.receipts });
        if (f.touchedDrawId) touched.add(f.touchedDrawId);
        return { p: (await trx('payments').where({ id: paymentId }).first()) as PaymentRow, f, touched };
      }
      if (p.status === 'approved' && (target === 'refunded' || target === 'charged_back')) {
        await revokeGrants(trx, row);
        await reversePaymentCashback(trx, row); // coupon credit back, never below zero (DESIGN §6)
        const undone = await undoSales(trx, row);
        for (const d of undone.released) touched.add(d.drawId);
        const notes = [
          ...undone.released.map((d) => `números ${d.numbers.join(', ')} do sorteio #${d.drawId} liberados`),
          ...undone.kept.map((d) => `números ${d.numbers.join(', ')} do sorteio #${d.drawId} (${d.status === 'drawn' ? 'realizado' : 'fechado'}) não concorrem`),
        ];
        if (notes.length) {
          const [again] = await trx('payments')
            .where({ id: paymentId })
            .update({ review_reason: `${reviewReason}; ${notes.join('; ')}` })
            .returning('*');
          return { p: again as PaymentRow, f: null, touched };
        }
      }
      const lapsed = isLapsed(target) || (p.status === 'pending' && (target === 'refunded' || target === 'charged_back'));
      if ((lapsed || underpaid) && row.reservation_id) {
        // The PIX lapsed (or will not be fulfilled): its reservation is released now rather than at
        // the hold's end. Reservation row first, then its cells: the order of the reservation expiry
        // job and of voucher consumption (cells first deadlocked with the expiry job).
        await trx('reservations').where({ id: row.reservation_id }).forUpdate().first('id');
        const drawId = await releaseHeldCells(trx, row.reservation_id);
        if (drawId) touched.add(drawId);
        await trx('reservations')
          .where({ id: row.reservation_id, status: 'active' })
          .update({ status: underpaid ? 'cancelled' : 'expired', updated_at: trx.fn.now() });
      }
      return { p: row, f: null, touched };
    });
    for (const drawId of result.touched) deps.draws.invalidateBoard(drawId);
    // The buyer's PIX status, payments and vouchers changed: their cached reads go everywhere.
    if (result.p?.user_id) await deps.userData?.userDataChanged(result.p.user_id);
    if (result.f?.receiptOutboxId) await deps.receipts?.dispatch([result.f.receiptOutboxId]);
    if (result.f?.fulfilled) deps.logger.info({ paymentId, result: result.f.result }, 'payment fulfilled');
    return result.p;
  };
}

/**
 * A refund or chargeback takes back what is still unused of the vouchers the payment granted
 * (e-books bought, or those a late approval gave for numbers it could not have), once; never more
 * than it granted, never below zero. Its coupon credit (cashback and a late approval's credit) is
 * reversed by reversePaymentCashback (coupons), which keeps what was already spent as a debt.
 */
async function revokeGrants(trx: Trx, row: PaymentRow) {
  const grant: { user_id: number; infoproduct_id: number; delta: number } | undefined = await trx('voucher_ledger')
    .where({ payment_id: row.id })
    .whereIn('reason', ['grant', 'late_approval'])
    .first('user_id', 'infoproduct_id', 'delta');
  if (grant) {
    const bal = await trx('voucher_balances').where({ user_id: grant.user_id, infoproduct_id: grant.infoproduct_id }).forUpdate().first('balance');
    const take = Math.min(bal?.balance ?? 0, grant.delta);
    if (take > 0) {
      const ins = await trx('voucher_ledger')
        .insert({ user_id: grant.user_id, infoproduct_id: grant.infoproduct_id, delta: -take, reason: 'revoke', payment_id: row.id })
        .onConflict(trx.raw(`(payment_id) WHERE reason = 'revoke'`))
        .ignore()
        .returning('id');
      if (ins.length) {
        await trx('voucher_balances')
          .where({ user_id: grant.user_id, infoproduct_id: grant.infoproduct_id })
          .update({ balance: trx.raw('balance - ?', [take]), updated_at: trx.fn.now() });
      }
    }
  }
}

/**
 * The numbers a refunded / charged-back payment bought: in a draw still open they go back to the
 * board and their sale rows are voided (kept as history); in a closed or drawn draw they stay,
 * and the winner check skips them (soldNumbersThatCount in draws/queries).
 */
async function undoSales(trx: Trx, row: PaymentRow) {
  const sales: Array<{ draw_id: number; n: number }> = await trx('number_sales')
    .where({ payment_id: row.id })
    .whereNull('voided_at')
    .orderBy([{ column: 'draw_id' }, { column: 'n' }])
    .select('draw_id', 'n');
  const byDraw = new Map<number, number[]>();
  for (const s of sales) byDraw.set(s.draw_id, [...(byDraw.get(s.draw_id) ?? []), s.n]);
  const released: Array<{ drawId: number; numbers: number[] }> = [];
  const kept: Array<{ drawId: number; numbers: number[]; status: string }> = [];
  for (const [drawId, numbers] of byDraw) {
    // Same lock order as every sale: draw row, then its cells in number order.
    const draw = await trx('draws').where({ id: drawId }).forUpdate().first('status');
    if (draw?.status !== 'open') {
      kept.push({ drawId, numbers, status: draw?.status ?? 'closed' });
      continue;
    }
    const cells: Array<{ n: number }> = await trx('draw_numbers')
      .where({ draw_id: drawId, status: 'sold', owner_user_id: row.user_id })
      .whereIn('n', numbers)
      .orderBy('n')
      .forUpdate()
      .select('n');
    const ns = cells.map((c) => c.n);
    if (!ns.length) continue;
    await trx('draw_numbers')
      .where({ draw_id: drawId })
      .whereIn('n', ns)
      .update({ status: 'available', owner_user_id: null, reservation_id: null, payment_id: null, sold_at: null, updated_at: trx.fn.now() });
    await trx('number_sales').where({ draw_id: drawId, payment_id: row.id }).whereIn('n', ns).whereNull('voided_at').update({ voided_at: trx.fn.now() });
    released.push({ drawId, numbers: ns });
  }
  return { released, kept };
}
