import type { Conn } from '../platform/db';
import type { Mailer } from '../platform/mail';
import { iso } from '../shared/iso';
import { describePurchase, RECEIPT_SUBJECT, receiptMailText, type ReceiptView } from '../shared/receipt';
import type { PaymentRow } from './fulfilment';

/**
 * The purchase receipt (RULES P4: an approved payment is fulfilled exactly once). A payment with
 * money in it (PIX or card, amount > 0) gets a receipt; an admin grant does not. The e-mail is
 * written to the outbox in the fulfilment's own transaction, right after payment_fulfilments
 * admitted the payment's one row: a repeated approval (webhook, poll, status check, confirm)
 * finds that row and never writes a second mail.
 */
export function hasReceipt(p: Pick<PaymentRow, 'kind' | 'status' | 'amount_cents' | 'paid_at'>): boolean {
  return p.kind !== 'admin' && p.status === 'approved' && p.amount_cents > 0 && p.paid_at != null;
}

export function receiptView(p: PaymentRow, productTitle: string | null): ReceiptView {
  return {
    payment_id: p.id,
    provider_transaction_id: p.provider_payment_id,
    txid: p.txid,
    e2e_id: p.pix_e2e_id ?? null,
    amount_cents: p.amount_cents,
    paid_at: iso(p.paid_at) as string,
    method: p.method,
    description: describePurchase({
      kind: p.kind,
      quantity: p.quantity,
      numbers: p.numbers,
      draw_id: p.draw_id,
      product_title: productTitle,
    }),
  };
}

export interface Receipts {
  /** Writes the receipt mail of a just-fulfilled payment in `trx`; the outbox id, or null (no receipt). */
  enqueue(trx: Conn, p: PaymentRow): Promise<number | null>;
  /** Queues the delivery of mails written by enqueue, after their transaction committed. */
  dispatch(outboxIds: number[]): Promise<void>;
}

export function createReceipts(deps: {
  mailer: Mailer;
  publicUrl: string;
  onDispatchError?: (outboxId: number, err: Error) => void;
}): Receipts {
  return {
    async enqueue(trx, p) {
      if (!hasReceipt(p)) return null;
      const user = await trx('users').where({ id: p.user_id }).first('email', 'name');
      if (!user?.email) return null;
      const product = p.infoproduct_id ? await trx('infoproducts').where({ id: p.infoproduct_id }).first('title') : null;
      const first = String(user.name ?? '').split(/\s+/)[0] || 'cliente';
      return deps.mailer.enqueue(trx, {
        to: user.email,
        template: 'purchase_receipt',
        subject: RECEIPT_SUBJECT,
        text: receiptMailText(receiptView(p, product?.title ?? null), { firstName: first, publicUrl: deps.publicUrl }),
      });
    },
    async dispatch(outboxIds) {
      for (const id of outboxIds) {
        // The mail sweep sends it anyway when this fails (Redis away).
        await deps.mailer.dispatch(id).catch((err) => deps.onDispatchError?.(id, err as Error));
      }
    },
  };
}
