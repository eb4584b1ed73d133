import type { Knex } from 'knex';

/**
 * The PIX end-to-end id (the "ID da transação" / E2E a Brazilian bank prints on a PIX receipt) of
 * an approved payment, as the provider reports it (payments module only; RULES P15). Nullable: card
 * payments, admin grants and providers that do not report it have none.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`ALTER TABLE payments ADD COLUMN pix_e2e_id text CHECK (pix_e2e_id IS NULL OR length(pix_e2e_id) BETWEEN 1 AND 64)`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`ALTER TABLE payments DROP COLUMN IF EXISTS pix_e2e_id`);
}
