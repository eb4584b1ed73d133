import type { Knex } from 'knex';

/**
 * Customer registry (RULES U4): an admin's "Excluir" on a customer with payments, numbers or
 * coupon entries anonymizes the account (LGPD) instead of erasing money records. The mark says
 * when; such an account has no password, no sessions and no personal data left.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE users ADD COLUMN anonymized_at timestamptz;
    ALTER TABLE users ADD CONSTRAINT users_anonymized_has_no_login CHECK (anonymized_at IS NULL OR (password_hash IS NULL AND cpf IS NULL AND phone IS NULL AND NOT is_admin));
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE users DROP CONSTRAINT IF EXISTS users_anonymized_has_no_login;
    ALTER TABLE users DROP COLUMN IF EXISTS anonymized_at;
  `);
}
