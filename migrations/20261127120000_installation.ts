import type { Knex } from 'knex';

/**
 * installation: one row made once per database. Its `id` prefixes every idempotency key sent to a
 * payment provider (two stores, or a reset database, on one provider account never share a key);
 * its `pix_evp` is the sandbox's default PIX key, a random EVP nobody can own.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE installation (
      singleton  boolean PRIMARY KEY DEFAULT true CHECK (singleton),
      id         uuid NOT NULL DEFAULT gen_random_uuid(),
      pix_evp    uuid NOT NULL DEFAULT gen_random_uuid(),
      created_at timestamptz NOT NULL DEFAULT now()
    );
    INSERT INTO installation DEFAULT VALUES;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`DROP TABLE IF EXISTS installation`);
}
