import type { Knex } from 'knex';

/**
 * Two-factor sign-in (TOTP, RFC 6238), owned by the auth module:
 * - user_mfa: one row per account that set it up. `secret_enc` is the active secret (AES-256-GCM
 *   under a key derived from APP_SECRET, never in clear), `pending_secret_enc` the one shown by
 *   setup until a code confirms it; `enabled_at` says two factors are on; `last_step` is the last
 *   accepted TOTP time step (a code of that step or an earlier one is refused: no replay).
 * - mfa_recovery_codes: single-use recovery codes, only their keyed hash.
 * - mfa_challenges: the `mfa_token` between the password and the code (hashed, 5 minutes,
 *   5 tries, single use), with the `remember` choice of the sign-in form for the cookie.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE user_mfa (
      user_id            bigint PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
      secret_enc         text,
      pending_secret_enc text,
      pending_at         timestamptz,
      enabled_at         timestamptz,
      last_step          bigint,
      updated_at         timestamptz NOT NULL DEFAULT now(),
      CONSTRAINT user_mfa_enabled_has_secret CHECK (enabled_at IS NULL OR secret_enc IS NOT NULL)
    );
    CREATE TABLE mfa_recovery_codes (
      id         bigserial PRIMARY KEY,
      user_id    bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      code_hash  text NOT NULL,
      used_at    timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      CONSTRAINT mfa_recovery_codes_unique UNIQUE (user_id, code_hash)
    );
    CREATE TABLE mfa_challenges (
      id          bigserial PRIMARY KEY,
      user_id     bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      token_hash  text NOT NULL UNIQUE,
      remember    boolean NOT NULL DEFAULT true,
      attempts    integer NOT NULL DEFAULT 0,
      expires_at  timestamptz NOT NULL,
      used_at     timestamptz,
      created_at  timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX mfa_challenges_user ON mfa_challenges (user_id);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`DROP TABLE IF EXISTS mfa_challenges; DROP TABLE IF EXISTS mfa_recovery_codes; DROP TABLE IF EXISTS user_mfa;`);
}
