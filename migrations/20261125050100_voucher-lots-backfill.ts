import type { Knex } from 'knex';

/**
 * Data for the voucher lots (schema in the previous migration), replaying each user's voucher
 * ledger in order: every grant becomes a lot tied to its payment; every consumption spends the
 * oldest lots first (recorded in voucher_lot_spends); a revocation empties its payment's lot.
 * A ledger whose replay does not reach the stored balance gets a 'legacy' lot for the difference,
 * so a balance always equals the remaining of its lots. Sales voided before this migration were
 * released (open draws); live sales of refunded or charged-back payments (closed draws) are
 * marked voided and kept.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    UPDATE number_sales SET void_kind = 'released' WHERE voided_at IS NOT NULL;
    UPDATE number_sales s SET voided_at = p.updated_at, void_kind = 'kept'
      FROM payments p
     WHERE p.id = s.payment_id AND s.voided_at IS NULL AND p.status IN ('refunded', 'charged_back');

    DO $$
    DECLARE
      e record;
      lot record;
      need integer;
      take integer;
      new_lot bigint;
    BEGIN
      FOR e IN SELECT v.*, p.kind AS payment_kind FROM voucher_ledger v LEFT JOIN payments p ON p.id = v.payment_id ORDER BY v.id LOOP
        IF e.reason IN ('grant', 'late_approval') OR (e.reason = 'adjustment' AND e.delta > 0) THEN
          INSERT INTO voucher_lots (user_id, infoproduct_id, source, payment_id, granted, remaining, created_at)
          VALUES (e.user_id, e.infoproduct_id,
                  CASE WHEN e.reason = 'late_approval' THEN 'late_approval' WHEN e.payment_kind = 'admin' THEN 'admin'
                       WHEN e.payment_id IS NULL THEN 'legacy' ELSE 'purchase' END,
                  e.payment_id, e.delta, e.delta, e.created_at)
          RETURNING id INTO new_lot;
          UPDATE voucher_ledger SET lot_id = new_lot WHERE id = e.id;
        ELSIF e.reason = 'revoke' THEN
          SELECT * INTO lot FROM voucher_lots WHERE payment_id = e.payment_id;
          IF FOUND THEN
            UPDATE voucher_lots SET remaining = greatest(0, remaining + e.delta), revoked_at = e.created_at WHERE id = lot.id;
            UPDATE voucher_ledger SET lot_id = lot.id WHERE id = e.id;
          END IF;
        ELSE
          -- A consumption (or a negative adjustment): oldest lots first.
          need := -e.delta;
          FOR lot IN SELECT * FROM voucher_lots WHERE user_id = e.user_id AND infoproduct_id = e.infoproduct_id AND remaining > 0 ORDER BY id LOOP
            EXIT WHEN need <= 0;
            take := least(need, lot.remaining);
            UPDATE voucher_lots SET remaining = remaining - take WHERE id = lot.id;
            INSERT INTO voucher_lot_spends (ledger_id, lot_id, count) VALUES (e.id, lot.id, take);
            need := need - take;
          END LOOP;
          IF need > 0 THEN
            INSERT INTO voucher_lots (user_id, infoproduct_id, source, granted, remaining, created_at)
            VALUES (e.user_id, e.infoproduct_id, 'legacy', need, 0, e.created_at) RETURNING id INTO new_lot;
            INSERT INTO voucher_lot_spends (ledger_id, lot_id, count) VALUES (e.id, new_lot, need);
          END IF;
        END IF;
      END LOOP;
    END $$;

    -- Balances above what the lots hold: a legacy lot carries the difference.
    INSERT INTO voucher_lots (user_id, infoproduct_id, source, granted, remaining)
    SELECT b.user_id, b.infoproduct_id, 'legacy', b.balance - coalesce(l.rem, 0), b.balance - coalesce(l.rem, 0)
      FROM voucher_balances b
      LEFT JOIN (SELECT user_id, infoproduct_id, sum(remaining)::int AS rem FROM voucher_lots GROUP BY 1, 2) l
        ON l.user_id = b.user_id AND l.infoproduct_id = b.infoproduct_id
     WHERE b.balance > coalesce(l.rem, 0);
    -- Lots above the balance (a ledger that disagrees with its balance): the newest are emptied first.
    WITH over AS (
      SELECT l.id, l.remaining,
             greatest(0, coalesce(b.balance, 0) - (sum(l.remaining) OVER (PARTITION BY l.user_id, l.infoproduct_id ORDER BY l.id) - l.remaining)) AS room
        FROM voucher_lots l
        LEFT JOIN voucher_balances b ON b.user_id = l.user_id AND b.infoproduct_id = l.infoproduct_id
       WHERE l.remaining > 0
    )
    UPDATE voucher_lots l SET remaining = least(over.remaining, over.room) FROM over WHERE over.id = l.id AND over.room < over.remaining;

    -- Numbers picked with vouchers: each from the lot its consumption spent (the first one when several).
    UPDATE number_sales s SET voucher_lot_id = sp.lot_id
      FROM voucher_ledger v
      JOIN LATERAL (SELECT lot_id FROM voucher_lot_spends WHERE ledger_id = v.id ORDER BY lot_id LIMIT 1) sp ON true
     WHERE s.source = 'voucher' AND s.voucher_lot_id IS NULL AND v.reason = 'consume'
       AND v.draw_id = s.draw_id AND v.user_id = s.user_id
       AND v.reservation_id IN (SELECT id FROM reservations r WHERE r.draw_id = s.draw_id AND s.n = ANY (r.numbers));
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    UPDATE number_sales SET voucher_lot_id = NULL;
    UPDATE number_sales SET voided_at = NULL, void_kind = NULL WHERE void_kind = 'kept';
    UPDATE voucher_ledger SET lot_id = NULL;
    DELETE FROM voucher_lot_spends;
    DELETE FROM voucher_lots;
  `);
}
