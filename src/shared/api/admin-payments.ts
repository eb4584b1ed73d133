/** The payment statuses an admin filters by (the console and `cotaverde payments list --status`). */
export const PAYMENT_STATUSES = [
  'pending',
  'authorized',
  'approved',
  'in_mediation',
  'rejected',
  'cancelled',
  'expired',
  'refunded',
  'charged_back',
] as const;

/**
 * The admin console's payments to review (account spec, `/api/admin/payments`), declared once: the
 * server (src/payments/review.ts) returns them, the console and the CLI show them. Types only,
 * besides the status list above.
 */

/** A review reason as a code: 'approved_after' = approved at the provider after being `status`. */
export interface ReviewFlag {
  code: 'approved_after';
  status: string;
}

export interface AdminPayment {
  id: number;
  user_id: number;
  user_name: string | null;
  user_email: string | null;
  kind: string;
  provider: string;
  method: string | null;
  status: string;
  amount_cents: number;
  quantity: number | null;
  infoproduct_id: number | null;
  infoproduct_title: string | null;
  draw_id: number | null;
  numbers: number[] | null;
  created_at: string;
  paid_at: string | null;
  flagged_for_review: boolean;
  /** Why it was flagged (late approval, refund, chargeback, amount mismatch…). */
  review_reason: string | null;
  /** The reason as a code when it is one the console words itself (null for the others). */
  review_flag: ReviewFlag | null;
  fulfilment_on_hold: boolean;
  reviewed_at: string | null;
  reviewed_by: number | null;
  reviewed_by_name: string | null;
  review_note: string | null;
  /** The sandbox provider is active and this charge is one of its own: 'Aprovar (sandbox)' works. */
  sandbox_approvable: boolean;
}

export interface AdminPaymentList {
  items: AdminPayment[];
  hasMore: boolean;
  limit: number;
  offset: number;
  /** Keyset paging: pass as `cursor` for the next (older) page; null on the last page. */
  next_cursor: number | null;
}
