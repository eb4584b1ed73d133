import type { Knex } from 'knex';

/**
 * Vouchers are spent from lots so that a refund finds every number its money bought:
 * - voucher_lots: one lot per grant (an e-book purchase, a late approval's vouchers, an admin's
 *   assignment), tied to the payment that granted it; `remaining` is what is still unused.
 *   A user's balance of a product equals the sum of the remaining of their lots.
 * - voucher_lot_spends: which lot(s) each consumption spent (oldest first), and how many.
 * - voucher_ledger.lot_id: the lot a grant or a revocation is about.
 * - number_sales.voucher_lot_id: the lot that paid a number picked with vouchers.
 * - number_sales.void_kind: how a voided sale was undone: 'released' (the draw was open: the
 *   number went back to the board) or 'kept' (the draw was closed: the number stays sold on the
 *   board, as history, and never wins).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE voucher_lots (
      id              bigserial PRIMARY KEY,
      user_id         bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      infoproduct_id  bigint NOT NULL REFERENCES infoproducts(id) ON DELETE CASCADE,
      source          text NOT NULL CHECK (source IN ('purchase', 'late_approval', 'admin', 'legacy')),
      payment_id      bigint REFERENCES payments(id) ON DELETE SET NULL,
      granted         integer NOT NULL CHECK (granted > 0),
      remaining       integer NOT NULL CHECK (remaining >= 0 AND remaining <= granted),
      revoked_at      timestamptz,
      created_at      timestamptz NOT NULL DEFAULT now()
    );
    CREATE UNIQUE INDEX voucher_lots_one_per_payment ON voucher_lots (payment_id) WHERE payment_id IS NOT NULL;
    CREATE INDEX voucher_lots_unused ON voucher_lots (user_id, infoproduct_id, id) WHERE remaining > 0;

    CREATE TABLE voucher_lot_spends (
      id         bigserial PRIMARY KEY,
      ledger_id  bigint NOT NULL REFERENCES voucher_ledger(id) ON DELETE CASCADE,
      lot_id     bigint NOT NULL REFERENCES voucher_lots(id) ON DELETE CASCADE,
      count      integer NOT NULL CHECK (count > 0),
      UNIQUE (ledger_id, lot_id)
    );
    CREATE INDEX voucher_lot_spends_lot ON voucher_lot_spends (lot_id);

    ALTER TABLE voucher_ledger ADD COLUMN lot_id bigint REFERENCES voucher_lots(id) ON DELETE SET NULL;

    ALTER TABLE number_sales
      ADD COLUMN voucher_lot_id bigint REFERENCES voucher_lots(id) ON DELETE SET NULL,
      ADD COLUMN void_kind text CHECK (void_kind IN ('released', 'kept')),
      ADD CONSTRAINT number_sales_void_kind CHECK ((voided_at IS NULL) = (void_kind IS NULL));
    CREATE INDEX number_sales_voucher_lot ON number_sales (voucher_lot_id) WHERE voucher_lot_id IS NOT NULL;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP INDEX IF EXISTS number_sales_voucher_lot;
    ALTER TABLE number_sales DROP CONSTRAINT IF EXISTS number_sales_void_kind, DROP COLUMN void_kind, DROP COLUMN voucher_lot_id;
    ALTER TABLE voucher_ledger DROP COLUMN lot_id;
    DROP TABLE voucher_lot_spends;
    DROP TABLE voucher_lots;
  `);
}
