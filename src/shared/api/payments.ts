/**
 * Payment shapes of the public API, declared once: the server's serializers (src/payments)
 * return them and the web client imports them. Types only: no runtime imports.
 */
import type { PaymentStatus } from './account';

/** Answer of every PIX creation: POST /api/payments/infoproduct, /api/payments/pix (storefront spec §3 "Payment response"). */
export interface PixPayment {
  paymentId: number;
  /** Alias of paymentId. */
  id: number;
  status: PaymentStatus;
  /** PNG in base64, without the data: prefix. */
  qr_code_base64: string | null;
  copy_paste_code: string | null;
  /** Aliases of copy_paste_code (copy_paste: the account spec's Payment). */
  copy_paste: string | null;
  qr_code: string | null;
  /** The reservation's draw and numbers (a PIX for a reservation); null and [] for e-books. */
  draw_id: number | null;
  numbers: number[];
  txid: string | null;
  /** Reais. */
  amount: number;
  amount_cents: number;
  expires_at: string | null;
}
