import type { Knex } from 'knex';

/**
 * An address in ADMIN_EMAILS makes an account admin only once the account proved it owns the
 * address (RULES U3):
 * - users.admin_email_proved: the (lowercased) address the account confirmed; the proof is for
 *   that address only (an account whose e-mail changes proves the new one again);
 * - admin_email_confirmations: single-use, expiring confirmation links (only their SHA-256 is
 *   stored; the token exists only in the mail that leaves).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE users ADD COLUMN admin_email_proved text;
    CREATE TABLE admin_email_confirmations (
      id          bigserial PRIMARY KEY,
      user_id     bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      email       text NOT NULL,
      token_hash  text NOT NULL UNIQUE,
      expires_at  timestamptz NOT NULL,
      used_at     timestamptz,
      created_at  timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX admin_email_confirmations_user ON admin_email_confirmations (user_id);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`DROP TABLE IF EXISTS admin_email_confirmations; ALTER TABLE users DROP COLUMN admin_email_proved;`);
}
