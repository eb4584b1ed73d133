import type { Knex } from 'knex';

/**
 * The whole domain in one first migration. Invariants live here (docs/RULES.md names them):
 * - a number is sold at most once: number_sales UNIQUE(draw_id, n) and the
 *   draw_numbers status/owner checks;
 * - one open draw per product: partial unique index on draws;
 * - one successor per closed draw: UNIQUE(predecessor_id);
 * - voucher balance never negative: CHECK (balance >= 0);
 * - one fulfilment per payment: payment_fulfilments PK(payment_id), one voucher
 *   grant and one coupon credit per payment (partial unique indexes);
 * - one captive number per active profile: partial unique index;
 * - unique email (case-insensitive) and CPF.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE users (
      id            bigserial PRIMARY KEY,
      name          text NOT NULL CHECK (length(trim(name)) > 0),
      email         text NOT NULL CHECK (email = lower(email) AND position('@' in email) > 1),
      phone         text CHECK (phone ~ '^[0-9]{10,13}$'),
      cpf           text CHECK (cpf ~ '^[0-9]{11}$'),
      birthdate     date,
      password_hash text,
      role          text NOT NULL DEFAULT 'customer' CHECK (role IN ('customer', 'admin')),
      is_admin      boolean NOT NULL DEFAULT false,
      coupon_code   text,
      accepted_terms_at timestamptz,
      created_at    timestamptz NOT NULL DEFAULT now(),
      updated_at    timestamptz NOT NULL DEFAULT now()
    );
    CREATE UNIQUE INDEX users_email_unique ON users (lower(email));
    CREATE UNIQUE INDEX users_cpf_unique ON users (cpf) WHERE cpf IS NOT NULL;
    CREATE UNIQUE INDEX users_coupon_code_unique ON users (coupon_code) WHERE coupon_code IS NOT NULL;

    CREATE TABLE auth_tokens (
      id          bigserial PRIMARY KEY,
      user_id     bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      token_hash  text NOT NULL UNIQUE,
      created_at  timestamptz NOT NULL DEFAULT now(),
      expires_at  timestamptz NOT NULL,
      revoked_at  timestamptz,
      user_agent  text
    );
    CREATE INDEX auth_tokens_user ON auth_tokens (user_id);

    CREATE TABLE password_resets (
      id          bigserial PRIMARY KEY,
      user_id     bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      token_hash  text NOT NULL UNIQUE,
      created_at  timestamptz NOT NULL DEFAULT now(),
      expires_at  timestamptz NOT NULL,
      used_at     timestamptz
    );
    CREATE INDEX password_resets_user ON password_resets (user_id);

    CREATE TABLE mail_outbox (
      id          bigserial PRIMARY KEY,
      to_address  text NOT NULL,
      subject     text NOT NULL,
      body_text   text NOT NULL,
      body_html   text,
      template    text NOT NULL,
      status      text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sent', 'logged', 'failed')),
      attempts    integer NOT NULL DEFAULT 0,
      last_error  text,
      created_at  timestamptz NOT NULL DEFAULT now(),
      sent_at     timestamptz
    );
    CREATE INDEX mail_outbox_pending ON mail_outbox (id) WHERE status = 'pending';

    CREATE TABLE audit_log (
      id            bigserial PRIMARY KEY,
      actor_user_id bigint REFERENCES users(id) ON DELETE SET NULL,
      actor         text NOT NULL DEFAULT 'user',
      action        text NOT NULL,
      entity        text NOT NULL,
      entity_id     text,
      data          jsonb NOT NULL DEFAULT '{}'::jsonb,
      created_at    timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX audit_log_entity ON audit_log (entity, entity_id);

    CREATE TABLE app_config (
      key         text PRIMARY KEY,
      value       jsonb NOT NULL,
      updated_at  timestamptz NOT NULL DEFAULT now()
    );

    CREATE TABLE categories (
      id          bigserial PRIMARY KEY,
      slug        text NOT NULL UNIQUE CHECK (slug ~ '^[a-z0-9-]+$'),
      name        text NOT NULL,
      logo_url    text,
      position    integer NOT NULL DEFAULT 0,
      created_at  timestamptz NOT NULL DEFAULT now()
    );

    CREATE TABLE infoproducts (
      id                    bigserial PRIMARY KEY,
      sku                   text UNIQUE,
      title                 text NOT NULL,
      subtitle              text,
      description           text,
      cover_url             text,
      file_url              text,
      file_sha256           text CHECK (file_sha256 ~ '^[0-9a-f]{64}$'),
      price_cents           integer CHECK (price_cents >= 0),
      default_prize_cents   integer NOT NULL DEFAULT 0 CHECK (default_prize_cents >= 0),
      default_total_numbers integer NOT NULL DEFAULT 100 CHECK (default_total_numbers BETWEEN 1 AND 1000),
      active                boolean NOT NULL DEFAULT true,
      category_id           bigint REFERENCES categories(id) ON DELETE SET NULL,
      created_at            timestamptz NOT NULL DEFAULT now(),
      updated_at            timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX infoproducts_category ON infoproducts (category_id);

    CREATE TABLE draws (
      id                          bigserial PRIMARY KEY,
      infoproduct_id              bigint REFERENCES infoproducts(id) ON DELETE RESTRICT,
      predecessor_id              bigint UNIQUE REFERENCES draws(id) ON DELETE SET NULL,
      title                       text NOT NULL,
      status                      text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'closed', 'drawn')),
      total_numbers               integer NOT NULL DEFAULT 100 CHECK (total_numbers BETWEEN 1 AND 1000),
      prize_cents                 integer NOT NULL DEFAULT 0 CHECK (prize_cents >= 0),
      ticket_price_cents_override integer CHECK (ticket_price_cents_override >= 0),
      max_per_user                integer NOT NULL DEFAULT 1 CHECK (max_per_user >= 0),
      opened_at                   timestamptz NOT NULL DEFAULT now(),
      closed_at                   timestamptz,
      realized_at                 timestamptz,
      contest_number              integer,
      winner_user_id              bigint REFERENCES users(id) ON DELETE SET NULL,
      winner_number               integer,
      no_winner                   boolean NOT NULL DEFAULT false,
      product_name                text,
      product_link                text,
      redeemed                    boolean NOT NULL DEFAULT false,
      created_at                  timestamptz NOT NULL DEFAULT now(),
      updated_at                  timestamptz NOT NULL DEFAULT now(),
      CHECK (status <> 'drawn' OR realized_at IS NOT NULL),
      CHECK (winner_number IS NULL OR (winner_number >= 0 AND winner_number < total_numbers))
    );
    CREATE UNIQUE INDEX draws_one_open_per_product ON draws (infoproduct_id) WHERE status = 'open' AND infoproduct_id IS NOT NULL;
    CREATE INDEX draws_status ON draws (status, id DESC);

    CREATE TABLE reservations (
      id          bigserial PRIMARY KEY,
      user_id     bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      draw_id     bigint NOT NULL REFERENCES draws(id) ON DELETE CASCADE,
      numbers     integer[] NOT NULL CHECK (cardinality(numbers) BETWEEN 1 AND 1000),
      status      text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'consumed', 'paid', 'expired', 'cancelled')),
      source      text NOT NULL DEFAULT 'user' CHECK (source IN ('user', 'autopay')),
      expires_at  timestamptz NOT NULL,
      created_at  timestamptz NOT NULL DEFAULT now(),
      updated_at  timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX reservations_user ON reservations (user_id, status);
    CREATE INDEX reservations_active_expiry ON reservations (expires_at) WHERE status = 'active';

    CREATE TABLE payments (
      id                   bigserial PRIMARY KEY,
      user_id              bigint NOT NULL REFERENCES users(id) ON DELETE RESTRICT,
      kind                 text NOT NULL CHECK (kind IN ('infoproduct', 'reservation', 'autopay', 'admin')),
      method               text NOT NULL CHECK (method IN ('pix', 'card', 'admin')),
      provider             text NOT NULL CHECK (provider IN ('sandbox', 'mercadopago', 'admin')),
      provider_payment_id  text,
      status               text NOT NULL DEFAULT 'pending'
                           CHECK (status IN ('pending', 'approved', 'rejected', 'cancelled', 'expired', 'refunded', 'charged_back')),
      amount_cents         integer NOT NULL CHECK (amount_cents >= 0),
      quantity             integer CHECK (quantity > 0),
      infoproduct_id       bigint REFERENCES infoproducts(id) ON DELETE RESTRICT,
      draw_id              bigint REFERENCES draws(id) ON DELETE SET NULL,
      reservation_id       bigint REFERENCES reservations(id) ON DELETE SET NULL,
      numbers              integer[],
      txid                 text,
      qr_code              text,
      qr_code_base64       text,
      expires_at           timestamptz,
      paid_at              timestamptz,
      flagged_for_review   boolean NOT NULL DEFAULT false,
      review_reason        text,
      last_checked_at      timestamptz,
      created_at           timestamptz NOT NULL DEFAULT now(),
      updated_at           timestamptz NOT NULL DEFAULT now(),
      CHECK (kind <> 'infoproduct' OR (infoproduct_id IS NOT NULL AND quantity IS NOT NULL))
    );
    CREATE UNIQUE INDEX payments_provider_id ON payments (provider, provider_payment_id) WHERE provider_payment_id IS NOT NULL;
    CREATE UNIQUE INDEX payments_txid ON payments (txid) WHERE txid IS NOT NULL;
    CREATE INDEX payments_user ON payments (user_id, id DESC);
    CREATE INDEX payments_pending ON payments (id) WHERE status = 'pending';
    CREATE INDEX payments_reservation ON payments (reservation_id);

    CREATE TABLE payment_fulfilments (
      payment_id    bigint PRIMARY KEY REFERENCES payments(id) ON DELETE CASCADE,
      fulfilled_at  timestamptz NOT NULL DEFAULT now(),
      result        jsonb NOT NULL DEFAULT '{}'::jsonb
    );

    CREATE TABLE draw_numbers (
      draw_id         bigint NOT NULL REFERENCES draws(id) ON DELETE CASCADE,
      n               integer NOT NULL CHECK (n >= 0 AND n < 1000),
      status          text NOT NULL DEFAULT 'available' CHECK (status IN ('available', 'reserved', 'sold')),
      reservation_id  bigint REFERENCES reservations(id) ON DELETE SET NULL,
      owner_user_id   bigint REFERENCES users(id) ON DELETE RESTRICT,
      payment_id      bigint REFERENCES payments(id) ON DELETE SET NULL,
      sold_at         timestamptz,
      updated_at      timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (draw_id, n),
      CHECK ((status = 'sold') = (owner_user_id IS NOT NULL)),
      CHECK (status <> 'reserved' OR reservation_id IS NOT NULL),
      CHECK (status <> 'available' OR (reservation_id IS NULL AND owner_user_id IS NULL))
    );
    CREATE INDEX draw_numbers_owner ON draw_numbers (owner_user_id, draw_id) WHERE owner_user_id IS NOT NULL;
    CREATE INDEX draw_numbers_reservation ON draw_numbers (reservation_id) WHERE reservation_id IS NOT NULL;

    -- The sale ledger: one row per number ever sold. UNIQUE(draw_id, n) is the
    -- database's guarantee that a number is sold at most once.
    CREATE TABLE number_sales (
      id          bigserial PRIMARY KEY,
      draw_id     bigint NOT NULL REFERENCES draws(id) ON DELETE CASCADE,
      n           integer NOT NULL,
      user_id     bigint NOT NULL REFERENCES users(id) ON DELETE RESTRICT,
      payment_id  bigint REFERENCES payments(id) ON DELETE SET NULL,
      source      text NOT NULL CHECK (source IN ('voucher', 'pix', 'autopay', 'admin')),
      created_at  timestamptz NOT NULL DEFAULT now(),
      UNIQUE (draw_id, n),
      FOREIGN KEY (draw_id, n) REFERENCES draw_numbers (draw_id, n) ON DELETE CASCADE
    );
    CREATE INDEX number_sales_user ON number_sales (user_id);

    CREATE TABLE voucher_balances (
      user_id         bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      infoproduct_id  bigint NOT NULL REFERENCES infoproducts(id) ON DELETE CASCADE,
      balance         integer NOT NULL DEFAULT 0 CHECK (balance >= 0),
      updated_at      timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (user_id, infoproduct_id)
    );

    CREATE TABLE voucher_ledger (
      id              bigserial PRIMARY KEY,
      user_id         bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      infoproduct_id  bigint NOT NULL REFERENCES infoproducts(id) ON DELETE CASCADE,
      delta           integer NOT NULL CHECK (delta <> 0),
      reason          text NOT NULL CHECK (reason IN ('grant', 'consume', 'revoke', 'late_approval', 'adjustment')),
      payment_id      bigint REFERENCES payments(id) ON DELETE SET NULL,
      draw_id         bigint REFERENCES draws(id) ON DELETE SET NULL,
      reservation_id  bigint REFERENCES reservations(id) ON DELETE SET NULL,
      created_at      timestamptz NOT NULL DEFAULT now()
    );
    CREATE UNIQUE INDEX voucher_ledger_one_grant_per_payment ON voucher_ledger (payment_id) WHERE reason IN ('grant', 'late_approval');
    CREATE UNIQUE INDEX voucher_ledger_one_revoke_per_payment ON voucher_ledger (payment_id) WHERE reason = 'revoke';
    CREATE INDEX voucher_ledger_user ON voucher_ledger (user_id, infoproduct_id);

    CREATE TABLE coupon_ledger (
      id            bigserial PRIMARY KEY,
      user_id       bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      kind          text NOT NULL CHECK (kind IN ('credit', 'debit', 'expiry', 'adjustment', 'late_approval')),
      amount_cents  integer NOT NULL CHECK (amount_cents <> 0),
      payment_id    bigint REFERENCES payments(id) ON DELETE SET NULL,
      note          text,
      actor_user_id bigint REFERENCES users(id) ON DELETE SET NULL,
      created_at    timestamptz NOT NULL DEFAULT now(),
      CHECK ((kind IN ('credit', 'late_approval')) = (amount_cents > 0) OR kind = 'adjustment')
    );
    CREATE UNIQUE INDEX coupon_ledger_one_credit_per_payment ON coupon_ledger (payment_id, kind) WHERE kind IN ('credit', 'late_approval');
    CREATE INDEX coupon_ledger_user ON coupon_ledger (user_id, id);

    CREATE TABLE coupon_accounts (
      user_id               bigint PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
      balance_cents         integer NOT NULL DEFAULT 0 CHECK (balance_cents >= 0),
      last_paid_payment_at  timestamptz,
      last_payment_sync_at  timestamptz,
      pushed_at             timestamptz,
      updated_at            timestamptz NOT NULL DEFAULT now()
    );

    CREATE TABLE autopay_profiles (
      id                    bigserial PRIMARY KEY,
      user_id               bigint NOT NULL UNIQUE REFERENCES users(id) ON DELETE CASCADE,
      active                boolean NOT NULL DEFAULT false,
      provider              text NOT NULL DEFAULT 'sandbox' CHECK (provider IN ('sandbox', 'mercadopago')),
      provider_customer_id  text,
      provider_card_id      text,
      brand                 text,
      last4                 text CHECK (last4 ~ '^[0-9]{4}$'),
      holder_name           text,
      doc_number            text CHECK (doc_number ~ '^[0-9]{11,14}$'),
      created_at            timestamptz NOT NULL DEFAULT now(),
      updated_at            timestamptz NOT NULL DEFAULT now()
    );

    CREATE TABLE autopay_captive_numbers (
      profile_id  bigint NOT NULL REFERENCES autopay_profiles(id) ON DELETE CASCADE,
      n           integer NOT NULL CHECK (n BETWEEN 0 AND 99),
      active      boolean NOT NULL DEFAULT false,
      created_at  timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (profile_id, n)
    );
    CREATE UNIQUE INDEX autopay_captive_one_active_owner ON autopay_captive_numbers (n) WHERE active;

    CREATE TABLE autopay_runs (
      id              bigserial PRIMARY KEY,
      profile_id      bigint NOT NULL REFERENCES autopay_profiles(id) ON DELETE CASCADE,
      draw_id         bigint NOT NULL REFERENCES draws(id) ON DELETE CASCADE,
      status          text NOT NULL DEFAULT 'held' CHECK (status IN ('held', 'charging', 'approved', 'failed', 'released', 'skipped')),
      numbers         integer[] NOT NULL DEFAULT '{}',
      reservation_id  bigint REFERENCES reservations(id) ON DELETE SET NULL,
      payment_id      bigint REFERENCES payments(id) ON DELETE SET NULL,
      error           text,
      created_at      timestamptz NOT NULL DEFAULT now(),
      updated_at      timestamptz NOT NULL DEFAULT now(),
      UNIQUE (profile_id, draw_id)
    );

    CREATE TABLE lottery_results (
      id              bigserial PRIMARY KEY,
      game            text NOT NULL DEFAULT 'lotomania',
      contest_number  integer NOT NULL CHECK (contest_number > 0),
      held_at         timestamptz NOT NULL,
      numbers         integer[] NOT NULL CHECK (cardinality(numbers) = 20),
      source          text NOT NULL CHECK (source IN ('cli', 'admin', 'service')),
      recorded_by     bigint REFERENCES users(id) ON DELETE SET NULL,
      created_at      timestamptz NOT NULL DEFAULT now(),
      UNIQUE (game, contest_number)
    );

    -- Events written in the same transaction as the change they announce;
    -- the worker relays them to BullMQ (transactional outbox).
    CREATE TABLE domain_events (
      id            bigserial PRIMARY KEY,
      name          text NOT NULL,
      payload       jsonb NOT NULL DEFAULT '{}'::jsonb,
      created_at    timestamptz NOT NULL DEFAULT now(),
      dispatched_at timestamptz
    );
    CREATE INDEX domain_events_pending ON domain_events (id) WHERE dispatched_at IS NULL;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP TABLE IF EXISTS domain_events, lottery_results, autopay_runs, autopay_captive_numbers, autopay_profiles,
      coupon_accounts, coupon_ledger, voucher_ledger, voucher_balances, number_sales, draw_numbers,
      payment_fulfilments, payments, reservations, draws, infoproducts, categories, app_config, audit_log,
      mail_outbox, password_resets, auth_tokens, users CASCADE;
  `);
}
