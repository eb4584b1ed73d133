import type { Knex } from 'knex';

/** The sandbox refunds saved-card charges too (operator refunds): when one was refunded. */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`ALTER TABLE sandbox_card_calls ADD COLUMN refunded_at timestamptz`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`ALTER TABLE sandbox_card_calls DROP COLUMN refunded_at`);
}
