import { errors } from '../platform/errors';
import { brl } from '../shared/money';
import { audit } from '../platform/audit';
import { releaseReservation } from '../draws/sales';
import { RetryUndo } from '../draws/vouchers';
import { fulfilPayment, type PaymentRow } from './fulfilment';
import { reversePaymentCashback } from '../coupons/service';
import type { ProviderPayment, ProviderStatus } from './providers/types';
import { pixEndToEndId } from './providers/e2e';
import { LAPSED_STATUSES } from './queries';
import type { PaymentsDeps } from './deps';
import { PAYMENT_STATUSES, type ReviewFlag } from '../shared/api/admin-payments';
import { countOf } from '../shared/plural';

/** Statuses a payment may move to from each status (RULES P3, P9, plus late approval of lapsed ones: P5). */
export const TRANSITIONS: Record<string, ProviderStatus[]> = {
  // pending → refunded/charged_back: approved and returned before we ever saw the approval
  // (nothing was delivered, nothing to revoke; flagged for review).
  pending: ['authorized', 'approved', 'rejected', 'cancelled', 'expired', 'refunded', 'charged_back'],
  // RULES P9: authorized (card authorized, not captured) waits for the provider, never our clock.
  authorized: ['approved', 'rejected', 'cancelled', 'refunded', 'charged_back'],
  expired: ['approved'],
  cancelled: ['approved'],
  rejected: ['approved'],
  // RULES P10: a dispute (in_mediation) ends approved again, refunded or charged back.
  approved: ['in_mediation', 'refunded', 'charged_back'],
  in_mediation: ['approved', 'refunded', 'charged_back'],
  refunded: [],
  charged_back: [],
};

/** Statuses whose money the provider has or holds: asked about again by the re-check job (RULES P11). */
export const RECHECKED_STATUSES = ['approved', 'authorized', 'in_mediation'] as const;
/** How long after its approval a payment is asked about again: the card networks' chargeback window. */
export const RECHECK_WINDOW_DAYS = 180;

/**
 * The re-check's decaying schedule (RULES P11): the delay before asking the provider again about a
 * payment approved `ageMs` ago; null once the window has passed. A payment the provider holds
 * (authorized, in mediation) is asked about daily whatever its age.
 */
export function recheckDelayMs(ageMs: number, status: string): number | null {
  const HOUR = 3600_000;
  const DAY = 24 * HOUR;
  if (status === 'authorized' || status === 'in_mediation') return ageMs < DAY ? HOUR : DAY;
  if (ageMs < DAY) return HOUR;
  if (ageMs < 7 * DAY) return 6 * HOUR;
  if (ageMs < 30 * DAY) return DAY;
  if (ageMs < RECHECK_WINDOW_DAYS * DAY) return Math.min(7 * DAY, RECHECK_WINDOW_DAYS * DAY - ageMs + HOUR);
  return null;
}

const nextRecheckAt = (paidAt: Date | null, status: string): Date | null => {
  const age = paidAt ? Date.now() - new Date(paidAt).getTime() : 0;
  const d = recheckDelayMs(age, status);
  return d == null ? null : new Date(Date.now() + d);
};

const isLapsed = (s: string) => (LAPSED_STATUSES as readonly string[]).includes(s);

/**
 * The review reason of a payment approved after it had lapsed or been undone. The sentence stays
 * the stored `review_reason` (the CLI prints it); the admin list also sends it as a code,
 * `reviewFlagOf`, which the console words.
 */
export const approvedAfterReason = (status: string) => `aprovado depois de ${status}`;

/** The code of a stored review reason this module wrote, or null for any other reason. */
export function reviewFlagOf(reason: string | null | undefined): ReviewFlag | null {
  if (!reason) return null;
  const status = PAYMENT_STATUSES.find((s) => reason === approvedAfterReason(s));
  return status ? { code: 'approved_after', status } : null;
}

/**
 * The one transition function: moves a payment to the provider's status under a row lock and,
 * in the same transaction, fulfils it (approval) or undoes what it gave (refund, chargeback).
 * Anything not in TRANSITIONS is a no-op, so every detection path may deliver any number of times.
 */
export function createApplyProviderState(deps: PaymentsDeps) {
  const { db } = deps;

  return async function applyProviderState(
    paymentId: number,
    remote: ProviderPayment,
    by?: { actor: 'system' | 'cli' | 'admin'; actorUserId?: number | null; reason?: string },
  ): Promise<PaymentRow> {
    // An undo that met a sale in a draw it had not locked starts again (see undoPayment).
    for (let attempt = 1; ; attempt++) {
      try {
        return await applyOnce(paymentId, remote, by);
      } catch (e) {
        if (!(e instanceof RetryUndo) || attempt >= 5) throw e;
        deps.logger.info({ paymentId, attempt }, 'refund met a sale in a draw it had not locked: retrying');
      }
    }
  };

  async function applyOnce(
    paymentId: number,
    remote: ProviderPayment,
    by?: { actor: 'system' | 'cli' | 'admin'; actorUserId?: number | null; reason?: string },
  ): Promise<PaymentRow> {
    const result = await db.transaction(async (trx) => {
      const p: PaymentRow | undefined = await trx('payments').where({ id: paymentId }).forUpdate().first();
      if (!p) throw errors.notFound('payment_not_found', 'Pagamento não encontrado.');
      if (p.provider_payment_id && remote.providerPaymentId !== p.provider_payment_id) {
        throw new Error(`provider payment ${remote.providerPaymentId} does not belong to payment ${paymentId}`);
      }
      const touched = new Set<number>();
      let target = remote.status;
      // Our own expiry: a still-pending charge past its time.
      if (target === 'pending' && p.status === 'pending' && p.expires_at && new Date(p.expires_at).getTime() <= Date.now())
        target = 'expired';
      if (target === p.status || !TRANSITIONS[p.status]?.includes(target)) {
        const refunded = remote.refundedCents ?? 0;
        if ((p.status === 'approved' || p.status === 'in_mediation') && refunded > (p.refunded_cents ?? 0) && refunded < p.amount_cents) {
          // RULES P12: a partial refund made at the provider keeps the payment (and what it
          // bought); a person decides, with the refunded amount in front of them.
          const reason = `reembolso parcial no provedor: ${brl(refunded)} de ${brl(p.amount_cents)}; analisar o que desfazer`;
          const [row]: PaymentRow[] = await trx('payments')
            .where({ id: paymentId })
            .update({
              refunded_cents: refunded,
              flagged_for_review: true,
              review_reason: reason,
              reviewed_at: null,
              reviewed_by: null,
              updated_at: trx.fn.now(),
            })
            .returning('*');
          await audit(trx, {
            actor: by?.actor ?? 'system',
            actorUserId: by?.actorUserId,
            action: 'payment.partially_refunded',
            entity: 'payment',
            entityId: paymentId,
            data: { provider: p.provider, refunded_cents: refunded, before_cents: p.refunded_cents ?? 0, amount_cents: p.amount_cents },
          });
          deps.logger.warn({ paymentId, refundedCents: refunded }, 'partial refund at the provider: flagged for review');
          return { p: row, f: null, touched };
        }
        // Nothing to change, but an approved payment is always fulfilled (repairs a crash between).
        if (p.status === 'approved') {
          // RULES P13: an end-to-end id reported after the approval is kept all the same.
          const e2e = p.pix_e2e_id ? null : pixEndToEndId(remote.endToEndId);
          if (e2e) {
            await trx('payments').where({ id: paymentId }).update({ pix_e2e_id: e2e });
            p.pix_e2e_id = e2e;
          }
          const f = await fulfilPayment(trx, p, { vouchers: deps.vouchers, draws: deps.draws, receipts: deps.receipts });
          if (f.touchedDrawId) touched.add(f.touchedDrawId);
          return { p, f, touched };
        }
        return { p, f: null, touched };
      }
      const approving = target === 'approved';
      // Less than charged: not fulfilled, a person decides (RULES P6). More: fulfilled, flagged.
      const underpaid = approving && remote.amountCents < p.amount_cents;
      const amountMismatch = approving && remote.amountCents !== p.amount_cents;
      if (amountMismatch)
        deps.logger.warn(
          { paymentId, expected: p.amount_cents, got: remote.amountCents },
          'approved amount differs from the charged amount',
        );
      const reviewReason =
        target === 'refunded' || target === 'charged_back'
          ? `pagamento ${target === 'refunded' ? 'estornado' : 'contestado (chargeback)'}`
          : target === 'in_mediation'
            ? 'pagamento em disputa (mediação no provedor): seus números não ganham enquanto durar'
            : underpaid
              ? `valor aprovado (${brl(remote.amountCents)}) menor que o cobrado (${brl(p.amount_cents)}): não entregue, aguarda análise`
              : amountMismatch
                ? `valor aprovado (${brl(remote.amountCents)}) difere do cobrado (${brl(p.amount_cents)})`
                : approving && p.status === 'in_mediation'
                  ? 'disputa encerrada no provedor: pagamento aprovado de novo'
                  : approving && p.status !== 'pending' && p.status !== 'authorized'
                    ? approvedAfterReason(p.status)
                    : null;
      const [row]: PaymentRow[] = await trx('payments')
        .where({ id: paymentId })
        .update({
          status: target,
          paid_at: approving && !p.paid_at ? (remote.paidAt ?? trx.fn.now()) : p.paid_at,
          // RULES P13: the PIX end-to-end id, kept once the provider reports it.
          pix_e2e_id: p.pix_e2e_id ?? pixEndToEndId(remote.endToEndId),
          refunded_cents: Math.max(p.refunded_cents ?? 0, remote.refundedCents ?? 0),
          // RULES P11: money the provider has or holds is asked about again on a decaying schedule.
          recheck_at: (RECHECKED_STATUSES as readonly string[]).includes(target)
            ? nextRecheckAt(approving ? (remote.paidAt ?? new Date()) : p.paid_at, target)
            : null,
          lapsed_at: isLapsed(target) ? trx.fn.now() : p.lapsed_at,
          fulfilment_on_hold: underpaid || p.fulfilment_on_hold,
          // Paid after all: there is nothing left to cancel at the provider.
          provider_cancel_pending: approving ? false : p.provider_cancel_pending,
          flagged_for_review: reviewReason ? true : p.flagged_for_review,
          review_reason: reviewReason ?? p.review_reason,
          // A new reason to look at it: an earlier review no longer covers it.
          ...(reviewReason ? { reviewed_at: null, reviewed_by: null } : {}),
          updated_at: trx.fn.now(),
        })
        .returning('*');
      const auditData: Record<string, unknown> = {
        from: p.status,
        provider: p.provider,
        ...(underpaid ? { amount_cents: remote.amountCents } : {}),
        ...(by?.reason ? { reason: by.reason } : {}),
      };
      // The transition's one audit row (its data read when written: a refund adds what it undid).
      const auditTransition = () =>
        audit(trx, {
          actor: by?.actor ?? 'system',
          actorUserId: by?.actorUserId,
          action: `payment.${target}`,
          entity: 'payment',
          entityId: paymentId,
          data: auditData,
        });
      if (approving && !underpaid) {
        await auditTransition();
        const f = await fulfilPayment(trx, row, { vouchers: deps.vouchers, draws: deps.draws, receipts: deps.receipts });
        if (f.touchedDrawId) touched.add(f.touchedDrawId);
        return { p: (await trx('payments').where({ id: paymentId }).first()) as PaymentRow, f, touched };
      }
      if ((p.status === 'approved' || p.status === 'in_mediation') && (target === 'refunded' || target === 'charged_back')) {
        // RULES RF1 – RF5, a refund reaches everything the payment bought: its unused vouchers, the
        // numbers it bought directly or with its vouchers, its coupon cashback, its e-book right
        // (which follows the payment's status and the sales that still count).
        const undone = await deps.vouchers.undoPayment(trx, row, { actor: by?.actor ?? 'system', actorUserId: by?.actorUserId ?? null });
        const coupon = await reversePaymentCashback(trx, row); // coupon credit back, never below zero (RULES RF4)
        for (const d of undone.released) touched.add(d.drawId);
        const notes = [
          ...undone.revoked.map((r) => `${countOf(r.count, 'voucher não usado revogado', 'vouchers não usados revogados')}`),
          ...undone.released.map((d) => `números ${d.numbers.join(', ')} do sorteio #${d.drawId} liberados`),
          ...undone.kept.map(
            (d) =>
              `números ${d.numbers.join(', ')} do sorteio #${d.drawId} (${d.status === 'drawn' ? 'realizado' : 'fechado'}) não concorrem (venda anulada)`,
          ),
          // RULES W8: the draws re-decided because the refunded sale was the winner's.
          ...undone.redecided.map(
            (d) =>
              `sorteio #${d.draw_id} apurado de novo: ${d.winning_number === null ? 'sem vencedor' : `novo número vencedor ${String(d.winning_number).padStart(2, '0')}`}`,
          ),
          ...(coupon
            ? [`cashback estornado: ${brl(coupon.reversed)}${coupon.debt ? `, débito de ${brl(coupon.debt)} já usados` : ''}`]
            : []),
          ...(row.kind === 'infoproduct' ? ['acesso ao e-book encerrado'] : []),
        ];
        auditData.undone = {
          revoked: undone.revoked,
          released: undone.released,
          kept: undone.kept,
          redecided: undone.redecided.map((d) => d.draw_id),
          coupon_cents: coupon,
        };
        await auditTransition();
        if (notes.length) {
          const [again] = await trx('payments')
            .where({ id: paymentId })
            .update({ review_reason: `${reviewReason}; ${notes.join('; ')}` })
            .returning('*');
          return { p: again as PaymentRow, f: null, touched };
        }
        return { p: row, f: null, touched };
      }
      await auditTransition();
      const lapsed =
        isLapsed(target) || ((p.status === 'pending' || p.status === 'authorized') && (target === 'refunded' || target === 'charged_back'));
      if ((lapsed || underpaid) && row.reservation_id) {
        // The PIX lapsed (or will not be fulfilled): its reservation is released now rather than at
        // the hold's end, by the one release of the sales module.
        const drawId = await releaseReservation(trx, row.reservation_id, underpaid ? 'cancelled' : 'expired');
        if (drawId) touched.add(drawId);
      }
      return { p: row, f: null, touched };
    });
    for (const drawId of result.touched) deps.draws.invalidateBoard(drawId);
    // The buyer's PIX status, payments and vouchers changed: their cached reads go everywhere.
    if (result.p?.user_id) await deps.userData?.userDataChanged(result.p.user_id);
    if (result.f?.receiptOutboxId) await deps.receipts?.dispatch([result.f.receiptOutboxId]);
    if (result.f?.fulfilled) deps.logger.info({ paymentId, result: result.f.result }, 'payment fulfilled');
    return result.p;
  }
}
