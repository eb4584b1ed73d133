import type { PaymentStatus } from '../shared/api/account';
import type { PixPayment } from '../shared/api/payments';
import { iso } from '../shared/iso';
import type { PaymentRow } from './fulfilment';

/** Answer of every PIX creation (storefront spec §3 "Payment response"). */
export function pixView(p: PaymentRow): PixPayment {
  return {
    paymentId: p.id,
    id: p.id,
    status: p.status as PaymentStatus,
    qr_code_base64: p.qr_code_base64,
    copy_paste_code: p.qr_code,
    copy_paste: p.qr_code,
    qr_code: p.qr_code,
    draw_id: p.draw_id,
    numbers: [...(p.numbers ?? [])].sort((a, b) => a - b),
    txid: p.txid,
    amount: p.amount_cents / 100,
    amount_cents: p.amount_cents,
    expires_at: iso(p.expires_at),
  };
}
