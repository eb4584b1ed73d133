import { z } from 'zod';
import type { Db } from '../platform/db';
import { errors } from '../platform/errors';
import { audit } from '../platform/audit';
import type { VouchersService } from '../draws/vouchers';
import { fulfilPayment, type PaymentRow } from './fulfilment';

export const AdminGrantCommand = z.object({
  user: z.string().trim().min(1, 'Informe o usuário (e-mail ou id).'),
  product: z.string().trim().min(1, 'Informe o e-book (SKU ou id).'),
  quantity: z.coerce.number().int('Quantidade deve ser inteira.').min(1, 'Quantidade mínima: 1.').max(1000, 'Quantidade máxima: 1000.'),
});

export interface PaymentsService {
  /**
   * Grants vouchers by hand (CLI / admin): recorded as an approved payment with
   * method 'admin' and fulfilled through the same path as a paid one.
   */
  grantVouchers(input: unknown, actor: { userId?: number | null; via: 'cli' | 'admin' }): Promise<{ paymentId: number; userId: number; infoproductId: number; quantity: number; balance: number }>;
}

export function createPaymentsService(deps: { db: Db; vouchers: VouchersService }): PaymentsService {
  const { db } = deps;
  return {
    async grantVouchers(input, actor) {
      const cmd = AdminGrantCommand.parse(input);
      return db.transaction(async (trx) => {
        const user = /^\d+$/.test(cmd.user)
          ? await trx('users').where({ id: Number(cmd.user) }).first('id')
          : await trx('users').whereRaw('lower(email) = lower(?)', [cmd.user]).first('id');
        if (!user) throw errors.notFound('user_not_found', `Usuário não encontrado: ${cmd.user}`);
        const product = /^\d+$/.test(cmd.product)
          ? await trx('infoproducts').where({ id: Number(cmd.product) }).first('id')
          : await trx('infoproducts').where({ sku: cmd.product }).first('id');
        if (!product) throw errors.notFound('infoproduct_not_found', `E-book não encontrado: ${cmd.product}`);
        const [payment]: PaymentRow[] = await trx('payments')
          .insert({
            user_id: user.id,
            kind: 'admin',
            method: 'admin',
            provider: 'admin',
            status: 'approved',
            amount_cents: 0,
            quantity: cmd.quantity,
            infoproduct_id: product.id,
            paid_at: trx.fn.now(),
          })
          .returning('*');
        await fulfilPayment(trx, payment, { vouchers: deps.vouchers });
        await audit(trx, {
          actorUserId: actor.userId ?? null,
          actor: actor.via,
          action: 'vouchers.granted',
          entity: 'payment',
          entityId: payment.id,
          data: { user_id: user.id, infoproduct_id: product.id, quantity: cmd.quantity },
        });
        const bal = await trx('voucher_balances').where({ user_id: user.id, infoproduct_id: product.id }).first('balance');
        return { paymentId: payment.id, userId: user.id, infoproductId: product.id, quantity: cmd.quantity, balance: bal?.balance ?? 0 };
      });
    },
  };
}
