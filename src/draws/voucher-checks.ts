import type { Conn } from '../platform/db';

/**
 * Read-only checks of the voucher books (for the books audit), each with the offending ids:
 * - `voucher_balance_matches_ledger`: "user:product" keys whose balance differs from the sum of
 *   their ledger or from the remaining of their lots;
 * - `voucher_consumption_has_lot`: consume ledger entries whose recorded lot spends do not add up
 *   to what they consumed;
 * - `voided_sale_never_wins`: draws whose winner number's sale is voided (or missing).
 */
export async function voucherLotChecks(
  db: Conn,
): Promise<Array<{ name: string; ok: boolean; count: number; ids: Array<number | string> }>> {
  const balances = await db.raw(`
    SELECT b.user_id || ':' || b.infoproduct_id AS id
      FROM voucher_balances b
      LEFT JOIN (SELECT user_id, infoproduct_id, sum(delta)::int AS s FROM voucher_ledger GROUP BY 1, 2) l
        ON l.user_id = b.user_id AND l.infoproduct_id = b.infoproduct_id
      LEFT JOIN (SELECT user_id, infoproduct_id, sum(remaining)::int AS r FROM voucher_lots GROUP BY 1, 2) t
        ON t.user_id = b.user_id AND t.infoproduct_id = b.infoproduct_id
     WHERE b.balance <> coalesce(l.s, 0) OR b.balance <> coalesce(t.r, 0)
    UNION
    SELECT l.user_id || ':' || l.infoproduct_id
      FROM (SELECT user_id, infoproduct_id, sum(delta)::int AS s FROM voucher_ledger GROUP BY 1, 2) l
      LEFT JOIN voucher_balances b ON b.user_id = l.user_id AND b.infoproduct_id = l.infoproduct_id
     WHERE b.user_id IS NULL AND l.s <> 0
    ORDER BY 1`);
  const consumptions = await db.raw(`
    SELECT v.id
      FROM voucher_ledger v
      LEFT JOIN (SELECT ledger_id, sum(count)::int AS c FROM voucher_lot_spends GROUP BY 1) sp ON sp.ledger_id = v.id
     WHERE v.reason = 'consume' AND coalesce(sp.c, 0) <> -v.delta
     ORDER BY v.id`);
  const winners = await db.raw(`
    SELECT d.id
      FROM draws d
     WHERE d.winner_number IS NOT NULL
       AND NOT EXISTS (SELECT 1 FROM number_sales s
                        WHERE s.draw_id = d.id AND s.n = d.winner_number AND s.user_id = d.winner_user_id AND s.voided_at IS NULL)
     ORDER BY d.id`);
  const check = (name: string, ids: Array<number | string>) => ({ name, ok: ids.length === 0, count: ids.length, ids });
  return [
    check(
      'voucher_balance_matches_ledger',
      balances.rows.map((r: { id: string }) => r.id),
    ),
    check(
      'voucher_consumption_has_lot',
      consumptions.rows.map((r: { id: string }) => Number(r.id)),
    ),
    check(
      'voided_sale_never_wins',
      winners.rows.map((r: { id: string }) => Number(r.id)),
    ),
  ];
}
