import type { Knex } from 'knex';

/**
 * backup_runs: one row per backup the worker (nightly) or an operator (`cotaverde db backup`)
 * took, written by src/ops/backups.ts once the file is complete or the run failed. The console's
 * operations view shows the last one; the worker sets its "last success" metric from it at boot.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE backup_runs (
      id            bigserial PRIMARY KEY,
      kind          text NOT NULL CHECK (kind IN ('nightly', 'manual')),
      started_at    timestamptz NOT NULL,
      finished_at   timestamptz NOT NULL DEFAULT now(),
      ok            boolean NOT NULL,
      file          text,
      bytes         bigint CHECK (bytes >= 0),
      tables        integer CHECK (tables >= 0),
      rows          bigint CHECK (rows >= 0),
      books_ok      boolean,
      migration     text,
      error         text,
      CHECK (ok = (error IS NULL)),
      CHECK (NOT ok OR (file IS NOT NULL AND bytes IS NOT NULL))
    );
    CREATE INDEX backup_runs_recent ON backup_runs (finished_at DESC);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE IF EXISTS backup_runs');
}
