import type { Knex } from 'knex';

/**
 * Coupons: refund reversals and the partner store push (RULES RF4, C1):
 * - a refund or chargeback reverses the payment's cashback once: ledger kind 'reversal'
 *   (negative), unique per payment;
 * - what was already spent when the reversal comes stays as a debt on the account,
 *   flagged for a person to review (the balance itself never goes below zero);
 * - pushed_ledger_id: the last ledger entry whose balance the partner store has
 *   received (the push's idempotency key is per ledger version).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE coupon_ledger DROP CONSTRAINT IF EXISTS coupon_ledger_kind_check;
    ALTER TABLE coupon_ledger ADD CONSTRAINT coupon_ledger_kind_check
      CHECK (kind IN ('credit', 'debit', 'expiry', 'adjustment', 'late_approval', 'reversal'));
    -- A reversal of 0 cents is allowed: it records that everything was already spent
    -- (the debt goes to coupon_accounts.debt_cents) and makes the reversal happen once.
    ALTER TABLE coupon_ledger DROP CONSTRAINT IF EXISTS coupon_ledger_amount_cents_check;
    ALTER TABLE coupon_ledger ADD CONSTRAINT coupon_ledger_amount_cents_check CHECK (amount_cents <> 0 OR kind = 'reversal');
    ALTER TABLE coupon_ledger ADD CONSTRAINT coupon_ledger_reversal_not_positive CHECK (kind <> 'reversal' OR amount_cents <= 0);
    CREATE UNIQUE INDEX coupon_ledger_one_reversal_per_payment ON coupon_ledger (payment_id) WHERE kind = 'reversal';
    CREATE INDEX coupon_ledger_payment ON coupon_ledger (payment_id) WHERE payment_id IS NOT NULL;

    ALTER TABLE coupon_accounts
      ADD COLUMN debt_cents integer NOT NULL DEFAULT 0 CHECK (debt_cents >= 0),
      ADD COLUMN flagged_for_review boolean NOT NULL DEFAULT false,
      ADD COLUMN review_reason text,
      ADD COLUMN pushed_ledger_id bigint,
      ADD COLUMN created_at timestamptz NOT NULL DEFAULT now();
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE coupon_accounts DROP COLUMN IF EXISTS debt_cents, DROP COLUMN IF EXISTS flagged_for_review,
      DROP COLUMN IF EXISTS review_reason, DROP COLUMN IF EXISTS pushed_ledger_id, DROP COLUMN IF EXISTS created_at;
    DROP INDEX IF EXISTS coupon_ledger_payment;
    DROP INDEX IF EXISTS coupon_ledger_one_reversal_per_payment;
    DELETE FROM coupon_ledger WHERE kind = 'reversal';
    ALTER TABLE coupon_ledger DROP CONSTRAINT IF EXISTS coupon_ledger_reversal_not_positive;
    ALTER TABLE coupon_ledger DROP CONSTRAINT IF EXISTS coupon_ledger_amount_cents_check;
    ALTER TABLE coupon_ledger ADD CONSTRAINT coupon_ledger_amount_cents_check CHECK (amount_cents <> 0);
    ALTER TABLE coupon_ledger DROP CONSTRAINT IF EXISTS coupon_ledger_kind_check;
    ALTER TABLE coupon_ledger ADD CONSTRAINT coupon_ledger_kind_check
      CHECK (kind IN ('credit', 'debit', 'expiry', 'adjustment', 'late_approval'));
  `);
}
