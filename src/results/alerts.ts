import type { Conn, Db } from '../platform/db';
import { audit } from '../platform/audit';
import { iso } from '../shared/iso';
import { GAME } from '../draws/result-alerts';

export { GAME };

/**
 * Alerts about the Lotomania results service (RULES W9), in `lottery_result_alerts` (written here;
 * read by draws/result-alerts.ts for the admin's draws answers and the metrics gauge):
 * a contest the service published without the draw order the winner rule needs. Each sighting
 * counts on the metric `cotaverde_lottery_results_without_draw_order_total` (fetch.ts); the first
 * one of a contest is audited (`lottery_result.draw_order_missing`), later polls only update the row.
 * Storing that contest's result (typed in, or fetched once the order appears) resolves it. The
 * admin's draws answers carry the open alert of a closed draw as `result_alert`.
 */

/**
 * Records a sighting of a contest published without its draw order (the caller counts it on the
 * metric): the first time per contest it writes the alert and its audit entry in one transaction. Answers whether this
 * sighting was the first. A contest already stored (typed in by an operator) raises nothing.
 */
export async function noteDrawOrderMissing(
  db: Db,
  f: { contest_number: number; drawn_at: Date; sorted_numbers: number[] },
): Promise<{ first: boolean; stored: boolean }> {
  return db.transaction(async (trx) => {
    const stored = await trx('lottery_results').where({ game: GAME, contest_number: f.contest_number }).first('id');
    if (stored) return { first: false, stored: true };
    const r = await trx.raw(
      `INSERT INTO lottery_result_alerts (game, contest_number, kind, held_at)
       VALUES (?, ?, 'draw_order_missing', ?)
       ON CONFLICT (game, contest_number, kind)
       DO UPDATE SET last_seen_at = now(), seen_count = lottery_result_alerts.seen_count + 1
       RETURNING (xmax = 0) AS inserted, resolved_at`,
      [GAME, f.contest_number, f.drawn_at],
    );
    const first = Boolean(r.rows[0]?.inserted);
    if (first) {
      await audit(trx, {
        actor: 'system',
        action: 'lottery_result.draw_order_missing',
        entity: 'lottery_result',
        entityId: f.contest_number,
        data: { game: GAME, contest_number: f.contest_number, drawn_at: iso(f.drawn_at), sorted_numbers: f.sorted_numbers },
      });
    }
    return { first, stored: false };
  });
}

/** The contest's result is stored now: its open alerts are resolved (in the storing transaction). */
export async function resolveResultAlerts(conn: Conn, contest: number): Promise<void> {
  await conn('lottery_result_alerts')
    .where({ game: GAME, contest_number: contest })
    .whereNull('resolved_at')
    .update({ resolved_at: conn.fn.now() });
}
