import type { Conn } from '../platform/db';
import { booksCheck, rowsOf, type BooksCheck } from '../platform/books';

/**
 * The payments' part of the books (RULES B1), read-only.
 *
 * `approved_payments_fulfilled_once` (RULES P4, P6): an approved payment not on hold has its one
 * fulfilment; no payment that was never approved (pending, rejected, cancelled, expired), and none
 * on hold, has one; and nothing is delivered for a payment outside its fulfilment: no sale,
 * voucher grant or coupon credit names a payment without a fulfilment row, and a payment never
 * sells more numbers than it paid for nor grants more vouchers than it bought.
 *
 * `deliveries_go_to_payer` (RULES P4): every sale, voucher grant and coupon credit made for a
 * payment went to that payment's user.
 */
export async function paymentsBooks(conn: Conn): Promise<BooksCheck[]> {
  const fulfilment = await rowsOf<{ id: number }>(
    conn,
    `SELECT p.id FROM payments p LEFT JOIN payment_fulfilments f ON f.payment_id = p.id
      WHERE (p.status = 'approved' AND NOT p.fulfilment_on_hold AND f.payment_id IS NULL)
         OR (f.payment_id IS NOT NULL AND (p.fulfilment_on_hold OR p.status NOT IN ('approved', 'refunded', 'charged_back')))
     UNION
     SELECT p.id FROM payments p
      WHERE NOT EXISTS (SELECT 1 FROM payment_fulfilments f WHERE f.payment_id = p.id)
        AND (EXISTS (SELECT 1 FROM number_sales s WHERE s.payment_id = p.id)
          OR EXISTS (SELECT 1 FROM voucher_ledger v WHERE v.payment_id = p.id AND v.reason IN ('grant', 'late_approval'))
          OR EXISTS (SELECT 1 FROM coupon_ledger c WHERE c.payment_id = p.id AND c.kind IN ('credit', 'late_approval')))
     UNION
     SELECT p.id FROM payments p JOIN number_sales s ON s.payment_id = p.id
      GROUP BY p.id HAVING count(*) > coalesce(max(cardinality(p.numbers)), 0)
     UNION
     SELECT p.id FROM payments p JOIN voucher_ledger v ON v.payment_id = p.id AND v.reason = 'grant'
      WHERE p.kind IN ('infoproduct', 'admin') AND v.delta > coalesce(p.quantity, 0)
     ORDER BY 1`,
  );
  const payer = await rowsOf<{ id: number }>(
    conn,
    `SELECT p.id FROM payments p JOIN number_sales s ON s.payment_id = p.id WHERE s.user_id <> p.user_id
     UNION
     SELECT p.id FROM payments p JOIN voucher_ledger v ON v.payment_id = p.id AND v.reason IN ('grant', 'late_approval') WHERE v.user_id <> p.user_id
     UNION
     SELECT p.id FROM payments p JOIN coupon_ledger c ON c.payment_id = p.id AND c.kind IN ('credit', 'late_approval') WHERE c.user_id <> p.user_id
     ORDER BY 1`,
  );
  return [
    booksCheck(
      'approved_payments_fulfilled_once',
      fulfilment.map((r) => r.id),
    ),
    booksCheck(
      'deliveries_go_to_payer',
      payer.map((r) => r.id),
    ),
  ];
}
