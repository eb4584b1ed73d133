import type { Knex } from 'knex';

/** The sandbox PSP's own ledger (what a real provider keeps on its side). */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE sandbox_charges (
      provider_payment_id  text PRIMARY KEY,
      external_reference   text NOT NULL,
      amount_cents         integer NOT NULL CHECK (amount_cents >= 0),
      status               text NOT NULL DEFAULT 'pending'
                           CHECK (status IN ('pending', 'approved', 'rejected', 'cancelled', 'expired', 'refunded', 'charged_back')),
      expires_at           timestamptz NOT NULL,
      approved_at          timestamptz,
      created_at           timestamptz NOT NULL DEFAULT now()
    );
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE IF EXISTS sandbox_charges');
}
