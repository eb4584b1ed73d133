import type { Knex } from 'knex';

/**
 * Payments as the provider shows them after approval (RULES P9, P10):
 * - statuses `authorized` (the card is authorized, not captured) and `in_mediation` (a dispute
 *   holds the money): states of their own, never expired by our clock;
 * - refunded_cents: what the provider refunded so far (a partial refund keeps the payment approved);
 * - recheck_at: when the re-check job asks the provider again about an approved payment.
 * autopay_runs gets `provider_refused`: the provider refused the request itself (our side, not the card).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE payments DROP CONSTRAINT IF EXISTS payments_status_check;
    ALTER TABLE payments ADD CONSTRAINT payments_status_check
      CHECK (status IN ('pending', 'authorized', 'approved', 'in_mediation', 'rejected', 'cancelled', 'expired', 'refunded', 'charged_back'));
    ALTER TABLE payments
      ADD COLUMN refunded_cents integer NOT NULL DEFAULT 0 CHECK (refunded_cents >= 0),
      ADD COLUMN recheck_at     timestamptz;
    UPDATE payments SET recheck_at = now() WHERE status = 'approved' AND provider_payment_id IS NOT NULL AND paid_at > now() - interval '180 days';
    CREATE INDEX payments_recheck ON payments (recheck_at) WHERE recheck_at IS NOT NULL;

    ALTER TABLE autopay_runs DROP CONSTRAINT IF EXISTS autopay_runs_status_check;
    ALTER TABLE autopay_runs ADD CONSTRAINT autopay_runs_status_check
      CHECK (status IN ('held', 'charging', 'approved', 'failed', 'released', 'skipped', 'provider_refused'));
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    UPDATE autopay_runs SET status = 'released' WHERE status = 'provider_refused';
    ALTER TABLE autopay_runs DROP CONSTRAINT IF EXISTS autopay_runs_status_check;
    ALTER TABLE autopay_runs ADD CONSTRAINT autopay_runs_status_check
      CHECK (status IN ('held', 'charging', 'approved', 'failed', 'released', 'skipped'));
    DROP INDEX IF EXISTS payments_recheck;
    ALTER TABLE payments DROP COLUMN recheck_at, DROP COLUMN refunded_cents;
    UPDATE payments SET status = 'pending' WHERE status IN ('authorized', 'in_mediation');
    ALTER TABLE payments DROP CONSTRAINT IF EXISTS payments_status_check;
    ALTER TABLE payments ADD CONSTRAINT payments_status_check
      CHECK (status IN ('pending', 'approved', 'rejected', 'cancelled', 'expired', 'refunded', 'charged_back'));
  `);
}
