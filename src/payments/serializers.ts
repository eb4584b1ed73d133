import type { PaymentStatus } from '../shared/api/account';
import type { PixPayment } from '../shared/api/payments';
import { iso } from '../shared/iso';
import type { PaymentRow } from './fulfilment';

/** Answer of every PIX creation (storefront §3 "Payment response"). */
export function pixView(p: PaymentRow): PixPayment {
  return {
    paymentId: p.id,
    id: p.id,
    status: p.status as PaymentStatus,
    qr_code_base64: p.qr_code_base64,
    copy_paste_code: p.qr_code,
    qr_code: p.qr_code,
    txid: p.txid,
    amount: p.amount_cents / 100,
    amount_cents: p.amount_cents,
    expires_at: iso(p.expires_at),
  };
}

/** A payment as its owner sees it (GET /api/payments/me). */
export function paymentView(p: PaymentRow) {
  return {
    id: p.id,
    paymentId: p.id,
    kind: p.kind,
    method: p.method,
    status: p.status,
    amount_cents: p.amount_cents,
    quantity: p.quantity,
    infoproduct_id: p.infoproduct_id,
    draw_id: p.draw_id,
    reservation_id: p.reservation_id,
    numbers: p.numbers ?? [],
    txid: p.txid,
    qr_code: p.status === 'pending' ? p.qr_code : null,
    qr_code_base64: p.status === 'pending' ? p.qr_code_base64 : null,
    copy_paste_code: p.status === 'pending' ? p.qr_code : null,
    expires_at: p.expires_at,
    paid_at: p.paid_at,
    created_at: p.created_at,
    flagged_for_review: p.flagged_for_review,
  };
}
