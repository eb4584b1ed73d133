import type { Knex } from 'knex';

/**
 * payments.refund_claimed_at: the operator's refund claims the payment before asking the provider
 * (RULES RF6: refunding twice changes nothing), so of concurrent refunds exactly one asks the
 * provider and says it refunded; the others wait for its outcome. Cleared when that refund
 * finishes; a claim left by a process that died counts as free after two minutes.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`ALTER TABLE payments ADD COLUMN refund_claimed_at timestamptz`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`ALTER TABLE payments DROP COLUMN refund_claimed_at`);
}
