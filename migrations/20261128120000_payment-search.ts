import type { Knex } from 'knex';

/**
 * The console's payment search (GET /api/admin/payments?q=, RULES P13), index-backed on each path:
 * trigram GIN indexes for a part of a customer's name or e-mail (ILIKE '%…%'), the provider's id
 * on its own (the unique index leads with the provider), and the existing exact ones (payment id:
 * primary key; CPF: users_cpf_unique; a customer's payments: payments_user).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE EXTENSION IF NOT EXISTS pg_trgm;
    CREATE INDEX IF NOT EXISTS users_name_trgm ON users USING gin (name gin_trgm_ops);
    CREATE INDEX IF NOT EXISTS users_email_trgm ON users USING gin (email gin_trgm_ops);
    CREATE INDEX IF NOT EXISTS payments_provider_payment_id ON payments (provider_payment_id) WHERE provider_payment_id IS NOT NULL;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP INDEX IF EXISTS payments_provider_payment_id;
    DROP INDEX IF EXISTS users_email_trgm;
    DROP INDEX IF EXISTS users_name_trgm;
  `);
}
