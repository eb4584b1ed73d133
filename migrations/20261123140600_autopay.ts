import type { Knex } from 'knex';

/**
 * Autopay (RULES A4, A5): what a run records beyond the first schema, and the sandbox card "bank".
 *
 * - autopay_runs: the hold's end, attempts, the next retry, the amount and the provider's answer.
 * - sandbox_card_tokens: the sandbox tokenizer's single-use, short-lived tokens. Never the card
 *   number: brand, last4, expiry, holder, document and the outcome class of the test card.
 * - sandbox_cards: a card saved from a token (what a provider customer's card is at Mercado Pago).
 * - sandbox_card_calls: every charge call the sandbox received (one decided answer per
 *   idempotency key: a repeated key gets the same charge back, never a second one).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE autopay_runs
      ADD COLUMN hold_until          timestamptz,
      ADD COLUMN attempts            integer NOT NULL DEFAULT 0,
      ADD COLUMN next_attempt_at     timestamptz,
      ADD COLUMN amount_cents        integer CHECK (amount_cents >= 0),
      ADD COLUMN provider            text,
      ADD COLUMN provider_payment_id text,
      ADD COLUMN provider_status     text,
      ADD COLUMN provider_response   jsonb,
      ADD COLUMN skipped_numbers     integer[] NOT NULL DEFAULT '{}',
      ADD COLUMN settled_at          timestamptz;
    CREATE INDEX autopay_runs_pending ON autopay_runs (draw_id) WHERE status IN ('held', 'charging');

    CREATE TABLE sandbox_card_tokens (
      id                text PRIMARY KEY,
      user_id           bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      brand             text NOT NULL,
      last4             text NOT NULL CHECK (last4 ~ '^[0-9]{4}$'),
      expiration_month  integer NOT NULL CHECK (expiration_month BETWEEN 1 AND 12),
      expiration_year   integer NOT NULL,
      holder_name       text NOT NULL,
      doc_number        text NOT NULL CHECK (doc_number ~ '^[0-9]{11,14}$'),
      outcome           text NOT NULL CHECK (outcome IN ('approve', 'decline', 'transient')),
      expires_at        timestamptz NOT NULL,
      consumed_at       timestamptz,
      created_at        timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX sandbox_card_tokens_user ON sandbox_card_tokens (user_id);

    CREATE TABLE sandbox_cards (
      id           text PRIMARY KEY,
      customer_id  text NOT NULL,
      user_id      bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      brand        text NOT NULL,
      last4        text NOT NULL CHECK (last4 ~ '^[0-9]{4}$'),
      outcome      text NOT NULL CHECK (outcome IN ('approve', 'decline', 'transient')),
      created_at   timestamptz NOT NULL DEFAULT now()
    );

    CREATE TABLE sandbox_card_calls (
      id               bigserial PRIMARY KEY,
      card_id          text NOT NULL REFERENCES sandbox_cards(id) ON DELETE CASCADE,
      idempotency_key  text NOT NULL,
      amount_cents     integer NOT NULL CHECK (amount_cents >= 0),
      result           text NOT NULL CHECK (result IN ('approved', 'rejected', 'transient_error', 'replay')),
      charge_id        text,
      created_at       timestamptz NOT NULL DEFAULT now()
    );
    CREATE UNIQUE INDEX sandbox_card_calls_one_charge ON sandbox_card_calls (idempotency_key) WHERE result IN ('approved', 'rejected');
    CREATE INDEX sandbox_card_calls_key ON sandbox_card_calls (idempotency_key);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP TABLE IF EXISTS sandbox_card_calls, sandbox_cards, sandbox_card_tokens;
    DROP INDEX IF EXISTS autopay_runs_pending;
    ALTER TABLE autopay_runs
      DROP COLUMN IF EXISTS hold_until, DROP COLUMN IF EXISTS attempts, DROP COLUMN IF EXISTS next_attempt_at,
      DROP COLUMN IF EXISTS amount_cents, DROP COLUMN IF EXISTS provider, DROP COLUMN IF EXISTS provider_payment_id,
      DROP COLUMN IF EXISTS provider_status, DROP COLUMN IF EXISTS provider_response, DROP COLUMN IF EXISTS skipped_numbers,
      DROP COLUMN IF EXISTS settled_at;
  `);
}
