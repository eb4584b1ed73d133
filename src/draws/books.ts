import type { Conn } from '../platform/db';
import { booksCheck, pairId, rowsOf, type BooksCheck } from '../platform/books';
import { voucherLotChecks } from './voucher-checks';

/**
 * The draws' part of the books (RULES B1), read-only: numbers, holds, vouchers and open draws
 * (the winners are results' part, results/books.ts). Ids: a cell is "draw:n", a voucher balance "user:product", a draw or product its id.
 */
export async function drawsBooks(conn: Conn): Promise<BooksCheck[]> {
  return [
    await soldCellsMatchLiveSales(conn),
    await heldCellsHaveActiveReservation(conn),
    await oneOpenDrawPerProduct(conn),
    await voucherBalancesMatchLedger(conn),
    await voucherConsumptionsHaveLots(conn),
  ];
}

/**
 * RULES N1, N2: a cell is sold exactly when it has one live sale, to its owner. A sold cell of a
 * closed or drawn draw whose sale was voided after the draw closed (a refund that keeps the number
 * on the board but out of the winner walk, RULES RF3) is accepted.
 */
async function soldCellsMatchLiveSales(conn: Conn): Promise<BooksCheck> {
  const rows = await rowsOf<{ draw_id: number; n: number }>(
    conn,
    `WITH live AS (
       SELECT draw_id, n, min(user_id) AS user_id, count(*) AS sales FROM number_sales WHERE voided_at IS NULL GROUP BY draw_id, n
     )
     SELECT dn.draw_id, dn.n
       FROM draw_numbers dn
       JOIN draws d ON d.id = dn.draw_id
       LEFT JOIN live l ON l.draw_id = dn.draw_id AND l.n = dn.n
      WHERE coalesce(l.sales, 0) > 1
         OR (dn.status <> 'sold' AND l.sales IS NOT NULL)
         OR (dn.status = 'sold' AND l.sales IS NOT NULL AND l.user_id IS DISTINCT FROM dn.owner_user_id)
         OR (dn.status = 'sold' AND l.sales IS NULL AND NOT (
               d.status <> 'open' AND d.closed_at IS NOT NULL AND EXISTS (
                 SELECT 1 FROM number_sales v
                  WHERE v.draw_id = dn.draw_id AND v.n = dn.n AND v.user_id = dn.owner_user_id AND v.voided_at >= d.closed_at)))
     UNION
     SELECT s.draw_id, s.n FROM number_sales s
      WHERE s.voided_at IS NULL AND NOT EXISTS (SELECT 1 FROM draw_numbers dn WHERE dn.draw_id = s.draw_id AND dn.n = s.n)
     ORDER BY 1, 2`,
  );
  return booksCheck(
    'sold_cells_match_live_sales',
    rows.map((r) => pairId(r.draw_id, r.n)),
  );
}

/** RULES R2: a reserved cell points at an active reservation of its draw that lists it. */
async function heldCellsHaveActiveReservation(conn: Conn): Promise<BooksCheck> {
  const rows = await rowsOf<{ draw_id: number; n: number }>(
    conn,
    `SELECT dn.draw_id, dn.n
       FROM draw_numbers dn
       LEFT JOIN reservations r ON r.id = dn.reservation_id
      WHERE dn.status = 'reserved'
        AND (r.id IS NULL OR r.status <> 'active' OR r.draw_id <> dn.draw_id OR NOT (dn.n = ANY (r.numbers)))
      ORDER BY 1, 2`,
  );
  return booksCheck(
    'held_cells_have_active_reservation',
    rows.map((r) => pairId(r.draw_id, r.n)),
  );
}

/** RULES D1: the products with more than one open draw. */
async function oneOpenDrawPerProduct(conn: Conn): Promise<BooksCheck> {
  const rows = await rowsOf<{ infoproduct_id: number }>(
    conn,
    `SELECT infoproduct_id FROM draws WHERE status = 'open' AND infoproduct_id IS NOT NULL
      GROUP BY infoproduct_id HAVING count(*) > 1 ORDER BY 1`,
  );
  return booksCheck(
    'one_open_draw_per_product',
    rows.map((r) => r.infoproduct_id),
  );
}

/** RULES V2: each (user, product) voucher balance equals the sum of its ledger. */
async function voucherBalancesMatchLedger(conn: Conn): Promise<BooksCheck> {
  const rows = await rowsOf<{ user_id: number; infoproduct_id: number }>(
    conn,
    `SELECT coalesce(b.user_id, l.user_id) AS user_id, coalesce(b.infoproduct_id, l.infoproduct_id) AS infoproduct_id
       FROM voucher_balances b
       FULL JOIN (SELECT user_id, infoproduct_id, sum(delta)::bigint AS total FROM voucher_ledger GROUP BY user_id, infoproduct_id) l
         ON l.user_id = b.user_id AND l.infoproduct_id = b.infoproduct_id
      WHERE coalesce(b.balance, 0) <> coalesce(l.total, 0)
      ORDER BY 1, 2`,
  );
  return booksCheck(
    'voucher_balances_match_ledger',
    rows.map((r) => pairId(r.user_id, r.infoproduct_id)),
  );
}

/**
 * RULES V4: every voucher consumption (ledger reason 'consume') records the lot(s) it spent, and
 * what it recorded adds up to what it consumed (voucher_lot_spends); a balance also equals the
 * unused remainder of its lots. The vouchers module owns both checks (voucherLotChecks).
 */
async function voucherConsumptionsHaveLots(conn: Conn): Promise<BooksCheck> {
  const checks = await voucherLotChecks(conn);
  const consumption = checks.find((c) => c.name === 'voucher_consumption_has_lot')!;
  const lots = checks.find((c) => c.name === 'voucher_balance_matches_ledger')!;
  const ids = [...consumption.ids, ...lots.ids.map((id) => `lots:${id}`)];
  return booksCheck('voucher_consumptions_have_lots', ids);
}
