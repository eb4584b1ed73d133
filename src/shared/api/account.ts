/**
 * Customer area API types shared by the server serializers and the web screens.
 * Types and tiny pure functions only: no runtime imports, so the web bundle can import it.
 * Contract: /work/wt/contract/account-api.md.
 */
import type { DrawResultWord, DrawStatus } from './draws';
import type { ReceiptView } from '../receipt';
import type { PrizeClaim, PrizeView } from '../prize';

export type PaymentStatus = 'pending' | 'approved' | 'rejected' | 'cancelled' | 'expired' | 'refunded' | 'charged_back';
/** How the user got numbers or vouchers. */
export type ParticipationKind = 'ebook' | 'reservation' | 'voucher' | 'admin' | 'autopay';

export interface DrawSummary {
  id: number;
  title: string;
  status: DrawStatus;
  /** The draw's result for the caller (account spec §4 badge): the status, or once decided contemplado / nao contemplado. */
  result: DrawResultWord;
  infoproduct_id: number | null;
  sku: string | null;
  winner_number: number | null;
  /** Only for decided draws: whether the caller owns the winning number. */
  won: boolean | null;
}

export interface PixData {
  qr_code: string;
  qr_code_base64: string;
  copy_paste: string;
  txid: string;
}

/** GET /api/payments/me → {items: ParticipationItem[]} newest first (keeps every field the
 *  existing /api/payments/me already answered, so the purchase flow keeps working). */
export interface ParticipationItem {
  id: number; // payment id, or the voucher-consumption id for kind 'voucher'
  kind: ParticipationKind;
  draw_id: number | null;
  draw: DrawSummary | null;
  numbers: number[]; // sorted ascending
  status: PaymentStatus; // consumptions and admin assignments: 'approved'
  amount_cents: number; // 0 for voucher consumptions and admin assignments
  quantity: number | null; // e-book payments: e-books bought
  vouchers_granted: number | null;
  infoproduct_id: number | null;
  reservation_id: number | null;
  created_at: string;
  paid_at: string | null;
  expires_at: string | null;
  pix: PixData | null; // only while pending
  /** The draw's result for the caller (= draw.result; 'open' without a draw): the row's badge and click. */
  result: DrawResultWord;
  /** The purchase receipt of an approved payment with money in it (the same as the e-mail 'Comprovante de compra'); null otherwise. */
  receipt: ReceiptView | null;
}

/** GET /api/me/reservations?active=1 → {items: ReservationItem[]} (the existing ReservationView shape). */

/** GET /api/me/draws/{id}/board */
export interface MyBoardCell {
  n: number;
  label: string;
  state: 'open' | 'reserved' | 'taken';
  isMine: boolean;
  isWinner: boolean;
}
export interface MyDrawBoard {
  draw: {
    id: number;
    status: DrawStatus;
    result: DrawResultWord;
    title: string;
    winner_number: number | null;
    winner_name: string | null;
    product_name: string | null;
    product_link: string | null;
    realized_at: string | null;
    closed_at: string | null;
    sku: string | null;
    /** The draw's prize (amount, and the item once the admin recorded it). */
    prize: PrizeView;
    /** How and until when to claim it: only the winner's own board has it (RULES W10). */
    claim: PrizeClaim | null;
  };
  board: MyBoardCell[];
  my_numbers: number[];
}

/** GET /api/ebooks/by-draw/{drawId} → EbookLink (403 not a buyer, 404 unknown draw / no e-book) */
export interface EbookLink {
  title: string;
  sku: string;
  url: string;
  expires_at: string;
}
// url is a signed, short-lived (≤10 min) absolute-path link: /api/ebooks/{sku}/download?u=..&exp=..&sig=..
// that works in a new tab without a bearer header; GET /api/ebooks/{sku}/download with a bearer
// header works too.

/** GET /api/coupons/mine */
export interface CouponEntry {
  id: number;
  kind: string;
  cents: number;
  payment_id: number | null;
  reason: string | null;
  created_at: string;
}
export interface CouponBalance {
  code: string;
  cents: number;
  valid_until: string | null;
  last_payment_sync_at: string | null;
  updated_at: string | null;
  entries: CouponEntry[];
}
/** POST /api/coupons/sync (alias POST /api/me/coupons/sync) → CouponSync */
export interface CouponSync {
  add_cents: number;
  last_payment_sync_at: string;
}

/** GET /api/config (public, existing) and POST /api/config (admin) {banner_title ≤ 240, max_numbers_per_selection 1..10} → the public config */

/** GET /api/me/export → JSON file (Content-Disposition: attachment; filename="cotaverde-meus-dados.json") */
