import { z } from 'zod';
import type { Conn, Db, Trx } from '../platform/db';
import { errors } from '../platform/errors';
import { Id } from '../platform/validation';
import type { Logger } from '../platform/logger';
import * as q from './queries';
import { cancelPendingPaymentsOfReservation } from '../payments/queries';
import type { DrawsService } from './service';
import type { ConsumeResult, VoucherAllowance } from '../shared/api/draws';

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
  .transform((v) => ({ drawId: v.draw_id, reservationId: v.reservationId ?? v.reservation_id, numbers: [...v.numbers].sort((a, b) => a - b) }))
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
  /** Grants `quantity` vouchers for a payment, once (unique per payment). Returns false if already granted. */
  grantForPayment(trx: Trx, p: { paymentId: number; userId: number; infoproductId: number; quantity: number; reason?: 'grant' | 'late_approval' }): Promise<boolean>;
  /** Voucher balances of a user, per product. */
  balances(userId: number): Promise<Array<{ infoproduct_id: number; balance: number }>>;
}

export function createVouchersService(deps: { db: Db; logger: Logger; draws: DrawsService }): VouchersService {
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
      const result = await db.transaction(async (trx) => {
        const res = await trx('reservations').where({ id: cmd.reservationId }).forUpdate().first();
        // Another user's reservation is reported exactly like a missing one.
        if (!res || res.user_id !== userId) throw errors.notFound('reservation_not_found', 'Reserva não encontrada.');
        // An autopay hold is paid by the saved card (RULES R6), not with vouchers.
        if (res.source === 'autopay') throw errors.conflict('reservation_autopay', 'Estes números são da compra automática: o cartão salvo será cobrado.');
        if (cmd.drawId && cmd.drawId !== res.draw_id) throw errors.validation('draw_mismatch', 'A reserva é de outro sorteio.');
        // Sales in one draw are serialized on the draw row: exactly one sale sees the board sold out.
        const draw = await q.lockDraw(trx, res.draw_id, 'update');
        if (!draw) throw errors.notFound('draw_not_found', 'Sorteio não encontrado.');
        if (draw.status !== 'open') throw errors.conflict('draw_closed', 'Este sorteio não está mais aberto.', { conflicts: cmd.numbers });
        const resNumbers: number[] = [...res.numbers].sort((a: number, b: number) => a - b);
        const foreign = cmd.numbers.filter((n) => !resNumbers.includes(n));
        if (res.status !== 'active' || new Date(res.expires_at).getTime() <= Date.now() || foreign.length) {
          throw errors.conflict('numbers_conflict', `Alguns números entraram em conflito na confirmação: ${(foreign.length ? foreign : cmd.numbers).map(pad).join(', ')}`, {
            conflicts: foreign.length ? foreign : cmd.numbers,
          });
        }
        if (cmd.numbers.length !== resNumbers.length) {
          throw errors.validation('reservation_mismatch', 'Confirme exatamente os números da reserva.', { numbers: resNumbers });
        }
        const cells: Array<{ n: number; status: string; reservation_id: number | null }> = await trx('draw_numbers')
          .where({ draw_id: draw.id })
          .whereIn('n', cmd.numbers)
          .orderBy('n')
          .forUpdate()
          .select('n', 'status', 'reservation_id');
        const conflicts = cmd.numbers.filter((n) => {
          const c = cells.find((x) => x.n === n);
          return !c || c.status !== 'reserved' || c.reservation_id !== res.id;
        });
        if (conflicts.length) {
          throw errors.conflict('numbers_conflict', `Alguns números entraram em conflito na confirmação: ${conflicts.map(pad).join(', ')}`, { conflicts });
        }
        if (!draw.infoproduct_id) throw errors.conflict('no_vouchers_for_draw', 'Este sorteio não aceita vouchers.');
        await q.lockUserInDraw(trx, draw.id, userId);
        const balance = await q.voucherBalance(trx, userId, draw.infoproduct_id, true);
        if (balance < cmd.numbers.length) {
          throw errors.conflict('insufficient_vouchers', `Você tem ${balance} voucher(s) para este e-book; compre mais para escolher ${cmd.numbers.length} número(s).`, {
            remaining: balance,
          });
        }
        if (draw.max_per_user > 0) {
          const owned = await q.ownedCount(trx, draw.id, userId);
          if (owned + cmd.numbers.length > draw.max_per_user) {
            throw errors.conflict('limit_exceeded', `Limite de ${draw.max_per_user} número(s) por pessoa neste sorteio.`, { max: draw.max_per_user, owned });
          }
        }
        await q.sellNumbers(trx, { drawId: draw.id, numbers: cmd.numbers, userId, source: 'voucher' });
        await trx('voucher_balances')
          .where({ user_id: userId, infoproduct_id: draw.infoproduct_id })
          .update({ balance: trx.raw('balance - ?', [cmd.numbers.length]), updated_at: trx.fn.now() });
        await trx('voucher_ledger').insert({
          user_id: userId,
          infoproduct_id: draw.infoproduct_id,
          delta: -cmd.numbers.length,
          reason: 'consume',
          draw_id: draw.id,
          reservation_id: res.id,
        });
        await trx('reservations').where({ id: res.id }).update({ status: 'consumed', updated_at: trx.fn.now() });
        const sellOut = await deps.draws.closeIfSoldOut(trx, draw.id);
        // Vouchers carry over: after a sell-out, what is left counts in the successor draw.
        const after = await service.allowance(userId, sellOut.successorId ?? draw.id, trx);
        return { drawId: draw.id, remaining: after.remaining, ...sellOut };
      });
      deps.draws.invalidateBoard(result.drawId);
      // A PIX generated for this reservation is no longer payable: cancelled here and at the provider.
      await cancelPendingPaymentsOfReservation(db, cmd.reservationId as number, 'reserva confirmada com vouchers');
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
      const inserted = await trx('voucher_ledger')
        .insert({ user_id: p.userId, infoproduct_id: p.infoproductId, delta: p.quantity, reason: p.reason ?? 'grant', payment_id: p.paymentId })
        .onConflict(trx.raw(`(payment_id) WHERE reason IN ('grant', 'late_approval')`))
        .ignore()
        .returning('id');
      if (!inserted.length) return false;
      await trx('voucher_balances')
        .insert({ user_id: p.userId, infoproduct_id: p.infoproductId, balance: p.quantity })
        .onConflict(['user_id', 'infoproduct_id'])
        .merge({ balance: trx.raw('voucher_balances.balance + excluded.balance'), updated_at: trx.fn.now() });
      return true;
    },

    async balances(userId) {
      return db('voucher_balances').where({ user_id: userId }).select('infoproduct_id', 'balance').orderBy('infoproduct_id');
    },
  };
  return service;
}
