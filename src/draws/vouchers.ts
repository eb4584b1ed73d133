import { z } from 'zod';
import type { Conn, Db, Trx } from '../platform/db';
import { errors } from '../platform/errors';
import { Id } from '../platform/validation';
import { countOf } from '../shared/plural';
import type { Logger } from '../platform/logger';
import * as q from './queries';
import type { DrawsService } from './service';
import { liveSalesOf, releaseReservation, sellNumbers, voidSales, type VoidOutcome } from './sales';
import { lockForSale, type LockedReservation } from './locks';
import type { ConsumeResult, VoucherAllowance } from '../shared/api/draws';
import type { DecidedDraw } from '../shared/api/results';

export const RemainingQuery = z.object({
  draw_id: Id('Informe o sorteio (draw_id).'),
});

export const ConsumeCommand = z
  .object({
    draw_id: Id('Informe o sorteio.').optional(),
    reservationId: Id('Reserva inválida.').optional(),
    reservation_id: Id('Reserva inválida.').optional(),
    numbers: z
      .array(z.number().int().min(0), { error: 'Informe os números.' })
      .min(1, 'Selecione pelo menos um número.')
      .max(1000)
      .refine((a) => new Set(a).size === a.length, 'Números repetidos na seleção.'),
  })
  .transform((v) => ({
    drawId: v.draw_id,
    reservationId: v.reservationId ?? v.reservation_id,
    numbers: [...v.numbers].sort((a, b) => a - b),
  }))
  .refine((v) => v.reservationId != null, { message: 'Informe a reserva (reservationId).', path: ['reservationId'] });

const pad = (n: number) => String(n).padStart(2, '0');

export interface Allowance {
  remaining: number;
  max: number | null;
  balance: number;
  owned: number;
}

export interface VouchersService {
  allowance(userId: number, drawId: number, conn?: Conn): Promise<Allowance>;
  remaining(userId: number, query: unknown): Promise<VoucherAllowance>;
  consume(userId: number, input: unknown): Promise<ConsumeResult>;
  /** Grants `quantity` vouchers for a payment as one lot tied to it, once (unique per payment). Returns false if already granted. */
  grantForPayment(
    trx: Trx,
    p: {
      paymentId: number;
      userId: number;
      infoproductId: number;
      quantity: number;
      reason?: 'grant' | 'late_approval';
      source?: 'purchase' | 'admin';
    },
  ): Promise<boolean>;
  /**
   * A refund or chargeback of a payment (in the caller's transaction, payment row locked):
   * revokes the unused vouchers of its lot and voids every live sale it bought, directly or
   * with its vouchers. Throws RetryUndo when a sale appeared in a draw it had not locked.
   */
  undoPayment(trx: Trx, payment: { id: number; status?: string }, by?: RefundActor): Promise<UndoOutcome>;
  /** Voucher balances of a user, per product. */
  balances(userId: number): Promise<Array<{ infoproduct_id: number; balance: number }>>;
}

export function createVouchersService(deps: {
  db: Db;
  logger: Logger;
  draws: DrawsService;
  /** A reservation ended without its PIX (wired in services.ts: payments cancels that PIX). */
  onReservationEnded?: (reservationId: number, reason: string) => Promise<unknown>;
  /**
   * A refund or chargeback voided sales of drawn draws, in its transaction (RULES W8): wired in
   * services.ts to results.redecideAfterRefund, which re-decides a draw whose winner's sale it was.
   */
  onDrawnSalesVoided: (trx: Trx, e: RefundedSales) => Promise<DecidedDraw[]>;
}): VouchersService {
  const { db } = deps;

  const service: VouchersService = {
    async allowance(userId, drawId, conn = db) {
      const draw = await q.findDraw(conn, drawId);
      if (!draw) throw errors.notFound('draw_not_found', 'Sorteio não encontrado.');
      const [balance, owned] = await Promise.all([
        draw.infoproduct_id ? q.voucherBalance(conn, userId, draw.infoproduct_id) : Promise.resolve(0),
        q.ownedCount(conn, drawId, userId),
      ]);
      const byLimit = draw.max_per_user > 0 ? Math.max(0, draw.max_per_user - owned) : Infinity;
      const remaining = draw.status === 'open' ? Math.min(balance, byLimit) : 0;
      return { remaining, max: draw.max_per_user > 0 ? draw.max_per_user : null, balance, owned };
    },

    async remaining(userId, query) {
      const { draw_id } = RemainingQuery.parse(query);
      const a = await service.allowance(userId, draw_id);
      return { remaining: a.remaining, max: a.max };
    },

    async consume(userId, input) {
      const cmd = ConsumeCommand.parse(input);
      /** The reservation is the caller's own, not an autopay hold, in the draw asked for. */
      function checkReservation(res: LockedReservation | undefined): asserts res is LockedReservation {
        // Another user's reservation is reported exactly like a missing one.
        if (!res || res.user_id !== userId) throw errors.notFound('reservation_not_found', 'Reserva não encontrada.');
        // An autopay hold is paid by the saved card (RULES R6), not with vouchers.
        if (res.source === 'autopay')
          throw errors.conflict('reservation_autopay', 'Estes números são da compra automática: o cartão salvo será cobrado.');
        if (cmd.drawId && cmd.drawId !== res.draw_id) throw errors.validation('draw_mismatch', 'A reserva é de outro sorteio.');
      }
      const result = await db.transaction(async (trx) => {
        // RULES N4: reservation, draw, its cells, (draw, user), the voucher balance. Sales in one
        // draw are serialized on the draw row: exactly one sale sees the board sold out.
        const {
          reservation: res,
          draw,
          cells,
          balance,
        } = await lockForSale(trx, {
          reservationId: cmd.reservationId,
          numbers: cmd.numbers,
          user: { id: userId },
          voucherBalance: true,
          guard: (d, r) => {
            checkReservation(r);
            if (d.status !== 'open') throw errors.conflict('draw_closed', 'Este sorteio não está mais aberto.', { conflicts: cmd.numbers });
            const resNumbers: number[] = [...r.numbers].sort((a: number, b: number) => a - b);
            const foreign = cmd.numbers.filter((n) => !resNumbers.includes(n));
            if (r.status !== 'active' || new Date(r.expires_at).getTime() <= Date.now() || foreign.length) {
              throw errors.conflict(
                'numbers_conflict',
                `Alguns números entraram em conflito na confirmação: ${(foreign.length ? foreign : cmd.numbers).map(pad).join(', ')}`,
                {
                  conflicts: foreign.length ? foreign : cmd.numbers,
                },
              );
            }
            if (cmd.numbers.length !== resNumbers.length) {
              throw errors.validation('reservation_mismatch', 'Confirme exatamente os números da reserva.', { numbers: resNumbers });
            }
          },
        });
        checkReservation(res);
        if (!draw) throw errors.notFound('draw_not_found', 'Sorteio não encontrado.');
        const conflicts = cmd.numbers.filter((n) => {
          const c = cells.find((x) => x.n === n);
          return !c || c.status !== 'reserved' || c.reservation_id !== res.id;
        });
        if (conflicts.length) {
          throw errors.conflict(
            'numbers_conflict',
            `Alguns números entraram em conflito na confirmação: ${conflicts.map(pad).join(', ')}`,
            { conflicts },
          );
        }
        if (!draw.infoproduct_id) throw errors.conflict('no_vouchers_for_draw', 'Este sorteio não aceita vouchers.');
        if ((balance ?? 0) < cmd.numbers.length) {
          throw errors.conflict(
            'insufficient_vouchers',
            `Você tem ${countOf(balance ?? 0, 'voucher', 'vouchers')} para este e-book; compre mais para escolher ${countOf(cmd.numbers.length, 'número', 'números')}.`,
            {
              remaining: balance,
            },
          );
        }
        if (draw.max_per_user > 0) {
          const owned = await q.ownedCount(trx, draw.id, userId);
          if (owned + cmd.numbers.length > draw.max_per_user) {
            throw errors.conflict(
              'limit_exceeded',
              `Limite de ${countOf(draw.max_per_user, 'número', 'números')} por pessoa neste sorteio.`,
              {
                max: draw.max_per_user,
                owned,
              },
            );
          }
        }
        const [entry] = await trx('voucher_ledger')
          .insert({
            user_id: userId,
            infoproduct_id: draw.infoproduct_id,
            delta: -cmd.numbers.length,
            reason: 'consume',
            draw_id: draw.id,
            reservation_id: res.id,
          })
          .returning('id');
        const lotOf = await spendLots(trx, { userId, infoproductId: draw.infoproduct_id, ledgerId: entry.id, numbers: cmd.numbers });
        await sellNumbers(trx, { drawId: draw.id, numbers: cmd.numbers, userId, source: 'voucher', lotOf: (n) => lotOf.get(n) ?? null });
        await trx('voucher_balances')
          .where({ user_id: userId, infoproduct_id: draw.infoproduct_id })
          .update({ balance: trx.raw('balance - ?', [cmd.numbers.length]), updated_at: trx.fn.now() });
        await releaseReservation(trx, res.id, 'consumed');
        const sellOut = await deps.draws.closeIfSoldOut(trx, draw.id);
        // Vouchers carry over: after a sell-out, what is left counts in the successor draw.
        const after = await service.allowance(userId, sellOut.successorId ?? draw.id, trx);
        return { drawId: draw.id, remaining: after.remaining, ...sellOut };
      });
      deps.draws.invalidateBoard(result.drawId);
      // A PIX generated for this reservation is no longer payable: cancelled here and at the provider.
      await deps.onReservationEnded?.(cmd.reservationId as number, 'reserva confirmada com vouchers');
      return {
        ok: true,
        message: 'Números confirmados com sucesso! Boa sorte',
        draw_id: result.drawId,
        numbers: cmd.numbers,
        remaining: result.remaining,
        sold_out: result.closed,
        next_draw_id: result.successorId,
      };
    },

    async grantForPayment(trx, p) {
      // Lot first: its unique payment index is the once-per-payment guard (the ledger's is the second).
      const lot = await trx('voucher_lots')
        .insert({
          user_id: p.userId,
          infoproduct_id: p.infoproductId,
          source: p.reason === 'late_approval' ? 'late_approval' : (p.source ?? 'purchase'),
          payment_id: p.paymentId,
          granted: p.quantity,
          remaining: p.quantity,
        })
        .onConflict(trx.raw(`(payment_id) WHERE payment_id IS NOT NULL`))
        .ignore()
        .returning('id');
      if (!lot.length) return false;
      await trx('voucher_ledger').insert({
        user_id: p.userId,
        infoproduct_id: p.infoproductId,
        delta: p.quantity,
        reason: p.reason ?? 'grant',
        payment_id: p.paymentId,
        lot_id: lot[0].id,
      });
      await trx('voucher_balances')
        .insert({ user_id: p.userId, infoproduct_id: p.infoproductId, balance: p.quantity })
        .onConflict(['user_id', 'infoproduct_id'])
        .merge({ balance: trx.raw('voucher_balances.balance + excluded.balance'), updated_at: trx.fn.now() });
      return true;
    },

    async undoPayment(trx, payment, by) {
      const undone = await undoPayment(trx, payment.id);
      // RULES W8: a voided sale of a drawn draw may have been its winner's: results decides again.
      const drawn = undone.kept.filter((k) => k.status === 'drawn').map((k) => k.drawId);
      const redecided = drawn.length
        ? await deps.onDrawnSalesVoided(trx, {
            drawIds: drawn,
            paymentId: payment.id,
            paymentStatus: payment.status === 'charged_back' ? 'charged_back' : 'refunded',
            by: { actor: by?.actor ?? 'system', actorUserId: by?.actorUserId ?? null },
          })
        : [];
      return { ...undone, redecided };
    },

    async balances(userId) {
      return db('voucher_balances').where({ user_id: userId }).select('infoproduct_id', 'balance').orderBy('infoproduct_id');
    },
  };
  return service;
}

export interface UndoOutcome extends VoidOutcome {
  /** Unused vouchers taken back, per product. */
  revoked: Array<{ infoproductId: number; count: number }>;
  /** Drawn draws whose winner changed because the refund voided the winning sale (RULES W8). */
  redecided: DecidedDraw[];
}

/**
 * A refund or chargeback voided sales of decided draws: the payload of onDrawnSalesVoided, fired in
 * the refund's transaction (results re-decides those draws, RULES W8).
 */
export interface RefundedSales {
  drawIds: number[];
  paymentId: number;
  paymentStatus: 'refunded' | 'charged_back';
  by: { actorUserId: number | null; actor: 'cli' | 'admin' | 'system' };
}

/** Who refunds: recorded on the re-decision's audit entries. */
export type RefundActor = { actor: 'system' | 'cli' | 'admin'; actorUserId?: number | null };

/** A sale of the payment appeared in a draw the undo had not locked: the whole transaction is retried. */
export class RetryUndo extends Error {
  constructor() {
    super('a sale of the refunded payment appeared in a draw not locked; retry');
    this.name = 'RetryUndo';
  }
}

/**
 * Spends a user's vouchers of a product oldest lot first (RULES V4, grants are lots): locks their unused lots, takes `numbers.length` from them, records each lot's
 * share against the ledger entry, and answers which lot paid each number (numbers ascending,
 * in lot order). The caller holds the user's balance row lock.
 */
async function spendLots(
  trx: Trx,
  o: { userId: number; infoproductId: number; ledgerId: number; numbers: number[] },
): Promise<Map<number, number>> {
  const lots: Array<{ id: number; remaining: number }> = await trx('voucher_lots')
    .where({ user_id: o.userId, infoproduct_id: o.infoproductId })
    .where('remaining', '>', 0)
    .orderBy('id')
    .forUpdate()
    .select('id', 'remaining');
  const lotOf = new Map<number, number>();
  const sorted = [...o.numbers].sort((a, b) => a - b);
  let i = 0;
  for (const lot of lots) {
    if (i >= sorted.length) break;
    const take = Math.min(lot.remaining, sorted.length - i);
    for (let k = 0; k < take; k++) lotOf.set(sorted[i + k], lot.id);
    i += take;
    await trx('voucher_lots')
      .where({ id: lot.id })
      .update({ remaining: trx.raw('remaining - ?', [take]) });
    await trx('voucher_lot_spends').insert({ ledger_id: o.ledgerId, lot_id: lot.id, count: take });
  }
  // The balance was checked under its lock; lots that do not cover it mean the books disagree.
  if (i < sorted.length) throw new Error(`voucher lots of user ${o.userId} product ${o.infoproductId} hold less than the balance`);
  return lotOf;
}

/**
 * Undoes what a refunded or charged-back payment bought (RULES RF1 – RF3). Lock order (RULES N4) as every sale: the draws involved (the open draws of the lot's
 * product, where its vouchers can still be spent, and every draw with a live sale of the payment),
 * then the buyer's balance and lot, then the cells (voidSales). A sale that appears in a draw
 * outside that set (a sell-out opened a successor meanwhile) makes the caller retry.
 */
async function undoPayment(trx: Trx, paymentId: number): Promise<Omit<UndoOutcome, 'redecided'>> {
  const lots: Array<{ id: number; user_id: number; infoproduct_id: number }> = await trx('voucher_lots')
    .where({ payment_id: paymentId })
    .select('id', 'user_id', 'infoproduct_id');
  const lotIds = lots.map((l) => l.id);
  const products = [...new Set(lots.map((l) => l.infoproduct_id))];
  const openDraws: Array<{ id: number }> = products.length
    ? await trx('draws').whereIn('infoproduct_id', products).where({ status: 'open' }).select('id')
    : [];
  const before = await liveSalesOf(trx, { paymentId, lotIds });
  const locked = new Set([...openDraws.map((d) => d.id), ...before.map((s) => s.draw_id)]);
  const { lots: lockedLots } = await lockForSale(trx, { drawIds: [...locked], lots });
  const revoked: UndoOutcome['revoked'] = [];
  for (const lot of lots.sort((a, b) => a.id - b.id)) {
    const row = lockedLots.get(lot.id)!;
    if (row.revoked_at) continue;
    await trx('voucher_lots').where({ id: lot.id }).update({ remaining: 0, revoked_at: trx.fn.now() });
    if (row.remaining > 0) {
      await trx('voucher_ledger').insert({
        user_id: lot.user_id,
        infoproduct_id: lot.infoproduct_id,
        delta: -row.remaining,
        reason: 'revoke',
        payment_id: paymentId,
        lot_id: lot.id,
      });
      await trx('voucher_balances')
        .where({ user_id: lot.user_id, infoproduct_id: lot.infoproduct_id })
        .update({ balance: trx.raw('balance - ?', [row.remaining]), updated_at: trx.fn.now() });
      revoked.push({ infoproductId: lot.infoproduct_id, count: row.remaining });
    }
  }
  // The lot is closed now: no consumption can spend it any more. What it already bought:
  const sales = await liveSalesOf(trx, { paymentId, lotIds });
  if (sales.some((s) => !locked.has(s.draw_id))) throw new RetryUndo();
  const voided = await voidSales(
    trx,
    sales.map((s) => s.id),
  );
  return { ...voided, revoked };
}
