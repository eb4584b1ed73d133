import type { Knex } from 'knex';

/**
 * Payments to review (the admin console and `payments review`): an operator marks a flagged payment reviewed with a note.
 * - payments.reviewed_at / reviewed_by / review_note: who looked at the flag, when, and what they
 *   wrote (the history of notes is in audit_log, action payment.reviewed).
 * - A payment flagged again later (a new reason, e.g. a refund after a late approval that was
 *   already reviewed) is to be reviewed again: a trigger clears reviewed_at / reviewed_by when the
 *   flag is raised or its reason changes, so no code path that flags a payment can forget it.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE payments
      ADD COLUMN reviewed_at timestamptz,
      ADD COLUMN reviewed_by bigint REFERENCES users(id) ON DELETE SET NULL,
      ADD COLUMN review_note text CHECK (char_length(review_note) <= 2000);
    CREATE INDEX payments_flagged_unreviewed ON payments (id DESC) WHERE flagged_for_review AND reviewed_at IS NULL;

    CREATE FUNCTION payments_reflag_clears_review() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF NEW.flagged_for_review
         AND (NOT OLD.flagged_for_review OR NEW.review_reason IS DISTINCT FROM OLD.review_reason)
         AND NEW.reviewed_at IS NOT DISTINCT FROM OLD.reviewed_at THEN
        NEW.reviewed_at := NULL;
        NEW.reviewed_by := NULL;
      END IF;
      RETURN NEW;
    END $$;
    CREATE TRIGGER payments_reflag_clears_review BEFORE UPDATE ON payments
      FOR EACH ROW EXECUTE FUNCTION payments_reflag_clears_review();
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP TRIGGER IF EXISTS payments_reflag_clears_review ON payments;
    DROP FUNCTION IF EXISTS payments_reflag_clears_review();
    DROP INDEX IF EXISTS payments_flagged_unreviewed;
    ALTER TABLE payments DROP COLUMN review_note, DROP COLUMN reviewed_by, DROP COLUMN reviewed_at;
  `);
}
