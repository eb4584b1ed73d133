import type { Trx } from '../platform/db';
import type { VouchersService } from '../draws/vouchers';

export interface PaymentRow {
  id: number;
  user_id: number;
  kind: 'infoproduct' | 'reservation' | 'autopay' | 'admin';
  method: 'pix' | 'card' | 'admin';
  provider: string;
  status: string;
  amount_cents: number;
  quantity: number | null;
  infoproduct_id: number | null;
  draw_id: number | null;
  reservation_id: number | null;
  numbers: number[] | null;
}

/**
 * The one place where an approved payment turns into what it bought, exactly
 * once: payment_fulfilments' primary key admits one row per payment, inserted in
 * the same transaction as the grant. Returns false when it was already fulfilled.
 */
export async function fulfilPayment(trx: Trx, payment: PaymentRow, deps: { vouchers: VouchersService }): Promise<{ fulfilled: boolean; result: Record<string, unknown> }> {
  if (payment.status !== 'approved') throw new Error(`payment ${payment.id} is ${payment.status}, not approved`);
  const claimed = await trx('payment_fulfilments').insert({ payment_id: payment.id }).onConflict('payment_id').ignore().returning('payment_id');
  if (!claimed.length) {
    const prev = await trx('payment_fulfilments').where({ payment_id: payment.id }).first();
    return { fulfilled: false, result: prev?.result ?? {} };
  }
  let result: Record<string, unknown> = {};
  if ((payment.kind === 'infoproduct' || payment.kind === 'admin') && payment.infoproduct_id && payment.quantity) {
    await deps.vouchers.grantForPayment(trx, { paymentId: payment.id, userId: payment.user_id, infoproductId: payment.infoproduct_id, quantity: payment.quantity });
    result = { vouchers: payment.quantity, infoproduct_id: payment.infoproduct_id };
  } else {
    throw new Error(`fulfilment of ${payment.kind} payments is not supported yet`);
  }
  await trx('payment_fulfilments').where({ payment_id: payment.id }).update({ result: JSON.stringify(result) });
  return { fulfilled: true, result };
}
