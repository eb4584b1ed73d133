import type { Knex } from 'knex';

/**
 * Why each draw was opened and closed (RULES D3 "an admin's close is a pause", D4, A3 autopay):
 * - draws.opened_by: 'sellout' (successor of a sold-out draw), 'admin' (console or CLI: creation,
 *   reopen, NOVO SORTEIO, a product's first draw opened by the e-book admin) or 'customer' (a
 *   product's first draw opened by ensure-open-draw). Autopay holds and charges captive numbers
 *   only in draws opened by 'sellout' or 'admin'.
 * - draws.closed_by: 'sellout' or 'admin'; null while open. ensure-open-draw opens a successor
 *   only after a 'sellout' close: an admin's close stays a pause.
 * Existing rows: a draw with a predecessor was opened by succession, any other by an admin; a
 * closed draw whose numbers are all sold closed by selling out, any other by an admin.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE draws
      ADD COLUMN opened_by text NOT NULL DEFAULT 'admin' CHECK (opened_by IN ('sellout', 'admin', 'customer')),
      ADD COLUMN closed_by text CHECK (closed_by IN ('sellout', 'admin'));
    UPDATE draws SET opened_by = 'sellout' WHERE predecessor_id IS NOT NULL;
    UPDATE draws d SET closed_by = CASE
        WHEN NOT EXISTS (SELECT 1 FROM draw_numbers n WHERE n.draw_id = d.id AND n.status <> 'sold') THEN 'sellout'
        ELSE 'admin' END
      WHERE d.status <> 'open';
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`ALTER TABLE draws DROP COLUMN closed_by, DROP COLUMN opened_by`);
}
