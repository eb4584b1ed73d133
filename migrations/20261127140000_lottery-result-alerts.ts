import type { Knex } from 'knex';

/**
 * Alerts about the Lotomania results service (draws owns it, beside lottery_results): a contest the
 * service published without the draw order the winner rule needs. One row per (game, contest,
 * kind): the first sighting is audited once, later polls only count; recording that contest's
 * result resolves it.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE lottery_result_alerts (
      id              bigserial PRIMARY KEY,
      game            text NOT NULL DEFAULT 'lotomania',
      contest_number  integer NOT NULL CHECK (contest_number > 0),
      kind            text NOT NULL CHECK (kind IN ('draw_order_missing')),
      held_at         timestamptz NOT NULL,
      first_seen_at   timestamptz NOT NULL DEFAULT now(),
      last_seen_at    timestamptz NOT NULL DEFAULT now(),
      seen_count      integer NOT NULL DEFAULT 1 CHECK (seen_count > 0),
      resolved_at     timestamptz,
      UNIQUE (game, contest_number, kind)
    );
    CREATE INDEX lottery_result_alerts_open ON lottery_result_alerts (held_at) WHERE resolved_at IS NULL;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`DROP TABLE IF EXISTS lottery_result_alerts`);
}
