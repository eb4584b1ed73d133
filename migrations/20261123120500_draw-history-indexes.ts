import type { Knex } from 'knex';

/**
 * The admin's draw table asks, per draw, whether it ever had a hold, a sale (voided ones too), a
 * payment or an autopay run (such a draw is closed, never deleted): indexes on draw_id for each,
 * which also serve the ON DELETE actions when an unused draw is deleted.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE INDEX IF NOT EXISTS reservations_draw ON reservations (draw_id);
    CREATE INDEX IF NOT EXISTS payments_draw ON payments (draw_id) WHERE draw_id IS NOT NULL;
    CREATE INDEX IF NOT EXISTS autopay_runs_draw ON autopay_runs (draw_id);
    CREATE INDEX IF NOT EXISTS number_sales_draw ON number_sales (draw_id);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP INDEX IF EXISTS number_sales_draw;
    DROP INDEX IF EXISTS autopay_runs_draw;
    DROP INDEX IF EXISTS payments_draw;
    DROP INDEX IF EXISTS reservations_draw;
  `);
}
