import type { Conn } from '../platform/db';
import type { PaymentRow } from './fulfilment';

/**
 * The one place that writes payments rows and fulfilment records (the rule "one owner for each
 * write": other modules call these, or the payments service, never insert into payments tables).
 * One payments table for every way money or value comes in (RULES P1): e-book and reservation
 * PIX (checkout), autopay card charges (autopay), admin grants and assignments.
 */
export interface NewPayment {
  user_id: number;
  kind: PaymentRow['kind'];
  method: PaymentRow['method'];
  provider: string;
  status: 'pending' | 'approved';
  amount_cents: number;
  quantity?: number | null;
  infoproduct_id?: number | null;
  draw_id?: number | null;
  reservation_id?: number | null;
  numbers?: number[] | null;
  expires_at?: Date | ReturnType<Conn['raw']> | null;
}

/** Creates a payment; an approved one (admin) is paid now. */
export async function insertPayment(trx: Conn, p: NewPayment): Promise<PaymentRow> {
  const [row]: PaymentRow[] = await trx('payments')
    .insert({ ...p, ...(p.status === 'approved' ? { paid_at: trx.fn.now() } : {}) })
    .returning('*');
  return row;
}

/**
 * Records that a payment was delivered where it was created (an admin's number assignment sells
 * the numbers in the same transaction): its one fulfilment row, so nothing is left to fulfil later.
 */
export async function recordDelivered(trx: Conn, paymentId: number, result: Record<string, unknown>): Promise<void> {
  await trx('payment_fulfilments').insert({ payment_id: paymentId, result: JSON.stringify(result) });
}

/** A pending payment never sent to the provider is cancelled (its autopay run was released). */
export async function cancelUnsentPayment(trx: Conn, paymentId: number, reason: string): Promise<void> {
  await trx('payments')
    .where({ id: paymentId, status: 'pending' })
    .whereNull('provider_payment_id')
    .update({ status: 'cancelled', lapsed_at: trx.fn.now(), review_reason: reason, updated_at: trx.fn.now() });
}

/** The provider's id of a charge made for our payment (set once). */
export async function attachProviderPaymentId(trx: Conn, paymentId: number, providerPaymentId: string): Promise<void> {
  await trx('payments')
    .where({ id: paymentId })
    .whereNull('provider_payment_id')
    .update({ provider_payment_id: providerPaymentId, updated_at: trx.fn.now() });
}

/**
 * An admin's assignment of numbers: an approved payment of R$ 0 delivered at once. Called by the
 * draws module's assignment (through the hook wired in services.ts) before it sells the numbers.
 */
export async function recordAdminAssignment(
  trx: Conn,
  a: { userId: number; drawId: number; numbers: number[]; assignedBy: number | null },
): Promise<number> {
  const p = await insertPayment(trx, {
    user_id: a.userId,
    kind: 'admin',
    method: 'admin',
    provider: 'admin',
    status: 'approved',
    amount_cents: 0,
    draw_id: a.drawId,
    numbers: a.numbers,
  });
  await recordDelivered(trx, p.id, { draw_id: a.drawId, sold: a.numbers, assigned_by: a.assignedBy });
  return Number(p.id);
}
