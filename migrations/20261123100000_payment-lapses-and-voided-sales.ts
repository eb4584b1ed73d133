import type { Knex } from 'knex';

/**
 * Hardening of money paths (RULES P5, P6, N5):
 * - payments.lapsed_at: when a payment became expired / cancelled / rejected. The provider is
 *   still asked about it for a window after that (a PIX paid late is never lost).
 * - payments.provider_cancel_pending: we cancelled the payment on our side (its reservation was
 *   consumed or released) and the charge is still to be cancelled at the provider.
 * - payments.fulfilment_on_hold: approved for less than charged; never fulfilled automatically.
 * - number_sales.voided_at: a sale undone by a refund or chargeback while its draw was open. The
 *   row stays (the ledger keeps the history); at most one live sale per number.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE payments
      ADD COLUMN lapsed_at timestamptz,
      ADD COLUMN provider_cancel_pending boolean NOT NULL DEFAULT false,
      ADD COLUMN fulfilment_on_hold boolean NOT NULL DEFAULT false,
      ADD CONSTRAINT payments_on_hold_is_flagged CHECK (NOT fulfilment_on_hold OR flagged_for_review);
    UPDATE payments SET lapsed_at = updated_at WHERE status IN ('expired', 'cancelled', 'rejected');
    CREATE INDEX payments_lapsed_checks ON payments (lapsed_at)
      WHERE status IN ('expired', 'cancelled', 'rejected') AND provider_payment_id IS NOT NULL;
    CREATE INDEX payments_provider_cancel ON payments (id) WHERE provider_cancel_pending;

    ALTER TABLE number_sales ADD COLUMN voided_at timestamptz;
    ALTER TABLE number_sales DROP CONSTRAINT number_sales_draw_id_n_key;
    CREATE UNIQUE INDEX number_sales_one_live_sale ON number_sales (draw_id, n) WHERE voided_at IS NULL;
    CREATE INDEX number_sales_payment ON number_sales (payment_id) WHERE payment_id IS NOT NULL;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP INDEX IF EXISTS number_sales_payment;
    DELETE FROM number_sales WHERE voided_at IS NOT NULL;
    DROP INDEX IF EXISTS number_sales_one_live_sale;
    ALTER TABLE number_sales ADD CONSTRAINT number_sales_draw_id_n_key UNIQUE (draw_id, n);
    ALTER TABLE number_sales DROP COLUMN voided_at;
    DROP INDEX IF EXISTS payments_provider_cancel;
    DROP INDEX IF EXISTS payments_lapsed_checks;
    ALTER TABLE payments
      DROP CONSTRAINT payments_on_hold_is_flagged,
      DROP COLUMN fulfilment_on_hold,
      DROP COLUMN provider_cancel_pending,
      DROP COLUMN lapsed_at;
  `);
}
