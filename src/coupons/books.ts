import type { Conn } from '../platform/db';
import { booksCheck, rowsOf, type BooksCheck } from '../platform/books';

/**
 * The coupons' part of the books (RULES C1), read-only: `coupon_balances_match_ledger` lists the
 * users whose coupon account balance differs from the sum of their coupon ledger (an account
 * without entries must be at zero; entries without an account must sum to zero).
 */
export async function couponsBooks(conn: Conn): Promise<BooksCheck[]> {
  const rows = await rowsOf<{ user_id: number }>(
    conn,
    `SELECT coalesce(a.user_id, l.user_id) AS user_id
       FROM coupon_accounts a
       FULL JOIN (SELECT user_id, sum(amount_cents)::bigint AS total FROM coupon_ledger GROUP BY user_id) l ON l.user_id = a.user_id
      WHERE coalesce(a.balance_cents, 0) <> coalesce(l.total, 0)
      ORDER BY 1`,
  );
  return [
    booksCheck(
      'coupon_balances_match_ledger',
      rows.map((r) => r.user_id),
    ),
  ];
}
